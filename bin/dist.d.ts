// Types of bin/dist.js (plain JavaScript: it runs before anything is compiled).
export declare const DIST_ENTRY: string
export declare function distIsCurrent(root: string): boolean
export declare function buildDist(root: string): boolean
