/** How the parts of a task are timed: this process's CPU over `count` calls, each on a turn of the event loop of its own, as in mats. */
import { forEachAtMost } from '../../consumers/schedules/at-most.js'

/** µs of this process's CPU (user + system) since `started`, or since it began. */
export function cpuMicrosSince(started?: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started)
  return used.user + used.system
}

/** Resolves on the event loop's next turn: a synchronous part is not run 5,000 times in one hot turn. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** µs of CPU per call of `part`, `lanes` calls at a time (8 for a round trip, as a burst has them in flight; 1 for a computation). */
export async function cpuPerCall(count: number, lanes: number, part: (i: number) => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage()
  await forEachAtMost(
    Array.from({ length: count }, (_, i) => i),
    lanes,
    async (i) => {
      await part(i)
    },
  )
  return cpuMicrosSince(started) / count
}
