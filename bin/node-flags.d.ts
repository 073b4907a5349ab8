// Types of bin/node-flags.js (plain JavaScript: scripts/start.mjs imports it before anything is compiled).
export declare const PRODUCTION_NODE_FLAGS: readonly string[]
export declare const DEV_NODE_FLAGS: readonly string[]
