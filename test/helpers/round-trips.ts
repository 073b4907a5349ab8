import { setTimeout as sleep } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import { connect } from '@nats-io/transport-node'
import type { Test } from 'tap'

export interface RoundTripSampler {
  /** Stops sampling; the round trips measured, in ms, sorted. */
  stop(): Promise<number[]>
}

/**
 * The machine's own baseline while a test runs: a core NATS request answered by a subscriber,
 * on a connection of its own in this process, every `everyMs`. It costs what any step of the
 * service costs at that moment (a starved CPU, a busy server, a blocked event loop), with no
 * work of the service's in it.
 */
export async function sampleRoundTrips(t: Test, natsUrl: string, everyMs = 20): Promise<RoundTripSampler> {
  const nc = await connect({ servers: natsUrl })
  t.teardown(() => nc.close())
  const subject = `baseline.${randomUUID()}`
  nc.subscribe(subject, {
    callback: (_err, msg) => {
      msg.respond()
    },
  })
  await nc.flush()
  const samples: number[] = []
  let sampling = true
  const loop = (async () => {
    while (sampling) {
      const startedAt = performance.now()
      await nc.request(subject, undefined, { timeout: 10_000 })
      samples.push(performance.now() - startedAt)
      await sleep(everyMs)
    }
  })()
  return {
    stop: async () => {
      sampling = false
      await loop
      return samples.sort((a, b) => a - b)
    },
  }
}

/** Nearest rank: the smallest value with at least p % of the values at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
