// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.
