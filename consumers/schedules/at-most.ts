/**
 * `work` for each item, at most `atOnce` at a time; rejects with the first failure once the
 * others under way have settled. A scheduler learning 10,000 changed schedules one log read
 * after the other took minutes on a loaded machine (ADR 0053); reads in flight together do not.
 */
export async function forEachAtMost<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const failures: unknown[] = []
  const worker = async () => {
    while (next < items.length && failures.length === 0) {
      const item = items[next++] as T
      await work(item).catch((err: unknown) => {
        failures.push(err)
      })
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker))
  if (failures.length > 0) throw failures[0]
}

/** `items` cut into runs of at most `size`, in order. */
export function batchesOf<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
}
