#!/usr/bin/env node
/**
 * `pnpm demo`: replays an agent transcript through every strategy of `@ctxguard/strategies`
 * against a small window, prints a summary table and writes a self-contained HTML report.
 */
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv);
