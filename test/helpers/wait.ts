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
 * Waits for a backlog to drain: polls `check` until nothing is left, and fails only when what
 * is left has not shrunk for `stallMs`. How long a backlog takes is the machine's speed (a
 * loaded CI drains it several times slower); whether it keeps moving is the service's, and a
 * task that never ends stops it.
 */
export async function untilDrained<T>(what: string, check: () => Promise<{ left: number; value: T }>, stallMs = 20_000, everyMs = 250): Promise<T> {
  let fewest = Number.POSITIVE_INFINITY
  let shrankAt = Date.now()
  for (;;) {
    const { left, value } = await check()
    if (left === 0) return value
    if (left < fewest) {
      fewest = left
      shrankAt = Date.now()
    } else if (Date.now() - shrankAt > stallMs) {
      throw new Error(`stalled waiting for ${what}: ${left} left, none for ${stallMs} ms`)
    }
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
