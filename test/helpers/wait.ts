/**
 * Waits for a condition with a deadline: polls `check` until it returns something other
 * than undefined/false, and fails with `what` if the deadline passes first. The default
 * deadline is sized for a starved CI machine, where a step can take many times as long as on a
 * quiet one; it only bounds a failure, since a wait returns as soon as its condition holds.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/**
 * Waits for a backlog to drain: polls `check` until nothing is left, and fails when what is
 * left has not shrunk for `stallMs` (a task that never ends stops it) or after `capMs` in
 * all. How long a backlog takes is the machine's speed, and a loaded CI drains it several
 * times slower: the cap only bounds a failure; whether the backlog keeps moving is the
 * service's, and what the stall checks.
 */
export async function untilDrained<T>(what: string, check: () => Promise<{ left: number; value: T }>, limits: { stallMs?: number; capMs?: number } = {}, everyMs = 250): Promise<T> {
  const { stallMs = 20_000, capMs = 180_000 } = limits
  const startedAt = Date.now()
  let fewest = Number.POSITIVE_INFINITY
  let shrankAt = startedAt
  for (;;) {
    const { left, value } = await check()
    if (left === 0) return value
    if (left < fewest) {
      fewest = left
      shrankAt = Date.now()
    } else if (Date.now() - shrankAt > stallMs) {
      throw new Error(`stalled waiting for ${what}: ${left} left, none for ${stallMs} ms`)
    }
    if (Date.now() - startedAt > capMs) throw new Error(`timed out after ${capMs} ms waiting for ${what}: ${left} left`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
