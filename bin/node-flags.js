// Node flags the service runs with, kept here so that every way of starting it agrees.
//
// Production (the Dockerfile's ENTRYPOINT, the capacity bench): V8's young generation pinned at
// two semi-spaces of 16 MiB. Left to itself, Node 24 resizes it with the allocation rate, from
// 1 MiB to 64 per semi-space on a machine of this size, and a process under steady load swung
// by up to 80 MiB of RSS with nothing leaking (measured: docs/benchmarks.md, 2026-11-27).
// Pinned, the heap held is flat and RSS follows what the process really keeps.
// `--min-semi-space-size` is not allowed in NODE_OPTIONS: these go on node's command line.
export const PRODUCTION_NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16']

// `npm start` (scripts/start.mjs), for a laptop: a young generation of at most 2 × 8 MiB, about
// 12 MiB less resident when idle for about 5-8 % more CPU per task under load (measured:
// docs/operations.md, Memory).
export const DEV_NODE_FLAGS = ['--max-semi-space-size=8']
