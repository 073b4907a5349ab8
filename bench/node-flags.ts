import { PRODUCTION_NODE_FLAGS } from '../bin/node-flags.js'

/**
 * The Node flags a bench starts mats processes (and the peers they are compared with) with:
 * production's, or BENCH_NODE_FLAGS (space-separated, may be empty) for an A/B of V8's settings.
 */
export function benchNodeFlags(): readonly string[] {
  return process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? PRODUCTION_NODE_FLAGS
}
