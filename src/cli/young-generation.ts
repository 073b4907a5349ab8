/**
 * Production runs node with V8's young generation pinned (`bin/node-flags.js`, ADR 0066): left
 * to resize with the load, it swings each process's RSS by tens of MiB with nothing leaking.
 * Whether this process was started so (the flags go on node's command line: NODE_OPTIONS refuses
 * `--min-semi-space-size`).
 */
export function youngGenerationPinned(execArgv: readonly string[] = process.execArgv): boolean {
  return ['--min-semi-space-size=', '--max-semi-space-size='].every((flag) => execArgv.some((arg) => arg.startsWith(flag)))
}

export const UNPINNED_WARNING =
  "node was started without --min-semi-space-size=16 --max-semi-space-size=16: V8's young generation resizes with the load and RSS swings with it (docs/operations.md#memory)"
