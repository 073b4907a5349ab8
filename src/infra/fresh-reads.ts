/**
 * Coalesces concurrent reads of the same key without ever answering one with a read that
 * began before it was asked. Callers that arrive while no read of their key is under way start
 * one; callers that arrive while one is under way share the single read that starts as soon as
 * it ends. So a caller always gets a value read after its call (what read-your-writes needs:
 * a budget check must see a task that ended just before it), and N concurrent callers cost at
 * most two reads instead of N.
 *
 * `read` says how to read the key; the same key must always be read the same way. Nothing is
 * cached once a read has answered. Callers share the value: they must not change it. When the
 * read under way fails, the callers queued behind it fail with it at once instead of reading
 * again: an error is never stale, and during an outage a caller then waits for one timed-out
 * read, not two.
 */
export class FreshReads<K, V> {
  private readonly current = new Map<K, Promise<V>>()
  private readonly queued = new Map<K, Promise<V>>()

  get(key: K, read: () => Promise<V>): Promise<V> {
    const queued = this.queued.get(key)
    if (queued) return queued
    const current = this.current.get(key)
    if (!current) return this.start(key, read)
    const next = current.then(
      () => this.start(key, read),
      (err: unknown) => {
        if (this.queued.get(key) === next) this.queued.delete(key)
        throw err
      },
    )
    this.queued.set(key, next)
    return next
  }

  private start(key: K, read: () => Promise<V>): Promise<V> {
    this.queued.delete(key)
    const reading = read()
    this.current.set(key, reading)
    const forget = () => {
      if (this.current.get(key) === reading) this.current.delete(key)
    }
    reading.then(forget, forget)
    return reading
  }
}
