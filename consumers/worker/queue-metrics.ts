import type { AppContext } from '../../src/app-context.js'
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'

const SCRAPE_MS = 1000

/**
 * The task queue as the dispatch stream's state on the server (ADR 0052), read when scraped:
 * its messages are exactly the TaskCreated not yet acknowledged (waiting, held or running),
 * and its first timestamp the oldest of them. The same for every worker process: graph one,
 * not their sum. (Tasks an older version queued on `mats-worker` are not counted while an
 * upgrade drains them.)
 */
export function watchTaskQueue(infra: AppContext): void {
  // Both gauges are read in one scrape: one request to the server serves them.
  let last: { at: number; info: ReturnType<typeof infra.jsm.streams.info> } | undefined
  const info = () => {
    if (!last || Date.now() - last.at > SCRAPE_MS) last = { at: Date.now(), info: infra.jsm.streams.info(DISPATCH_STREAM) }
    return last.info
  }
  infra.metrics.gaugeOnScrape('task_queue_depth', 'Tasks whose TaskCreated the workers have not acknowledged: waiting, held or running', async () => (await info()).state.messages)
  infra.metrics.gaugeOnScrape('task_queue_oldest_seconds', 'Age of the oldest TaskCreated the workers have not acknowledged (0 when none)', async () => {
    const { state } = await info()
    return state.messages > 0 ? Math.max(0, (Date.now() - new Date(state.first_ts).getTime()) / 1000) : 0
  })
}
