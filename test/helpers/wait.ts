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
