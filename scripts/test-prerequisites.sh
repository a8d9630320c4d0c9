#!/usr/bin/env bash
# What the test suite needs besides Node and pnpm: a redis-server binary (the Redis tests start their
# own on free ports) and Chromium (the browser tests: ctxguard bundled into a page, the demo's HTML report). Finds them on
# PATH, or installs Debian's packages when apt-get is there.
set -euo pipefail

missing=()
if ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi
if ! command -v chromium >/dev/null 2>&1; then missing+=(chromium); fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need ${missing[*]} on PATH: install them with your package manager." >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "The tests need ${missing[*]}: install them (apt-get install ${missing[*]}) as root." >&2
  exit 1
fi
echo "Installing ${missing[*]} for the tests (Debian packages)…" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
