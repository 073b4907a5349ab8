// Node flags `npm start` runs the service with (scripts/start.mjs), for a laptop: V8's young
// generation at 2 × 8 MiB instead of 2 × 16, about 12 MiB less resident when idle for about
// 5-8 % more CPU per task under load (measured: docs/operations.md, Memory). Production images
// keep Node's defaults; NODE_OPTIONS sets the same there.
export const DEV_NODE_FLAGS = ['--max-semi-space-size=8']
