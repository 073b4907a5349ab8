import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { Test } from 'tap'

/**
 * A product deadline ("503 within 2 s") is a timer in the service. On a starved machine that
 * timer fires as late as the process was kept from running, whatever the product does, so a
 * test that checks the deadline on a busy machine checks it net of that lateness: answered
 * within `deadline + starved`. The lateness is this process's event-loop delay over the window
 * (the service runs in it, or beside it on the same cores); on a quiet machine it is a few
 * milliseconds and the bound is the deadline itself.
 */
export interface Starvation {
  /** The longest this process waited to run a due timer since the meter started, in ms. */
  readonly starvedMs: () => number
  /** Checks that `tookMs` kept `deadlineMs` once this process's starvation is taken off. */
  readonly within: (t: Test, tookMs: number, deadlineMs: number, what: string) => void
}

export function starvationMeter(t: Test): Starvation {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  t.teardown(() => delay.disable())
  const starvedMs = () => Math.round(delay.max / 1e6)
  return {
    starvedMs,
    within(t, tookMs, deadlineMs, what) {
      const starved = starvedMs()
      t.ok(tookMs < deadlineMs + starved, `${what}: ${tookMs} ms, deadline ${deadlineMs} ms + ${starved} ms this process was kept from running`)
    },
  }
}
