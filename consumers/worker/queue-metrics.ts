import type { AppContext } from '../../src/app-context.js'
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import { WORKER_CONSUMER } from './arrival-pull.js'

const SCRAPE_MS = 1000

/**
 * The task queue as the worker consumer's state on the server, read when scraped: how many
 * TaskCreated are not yet acknowledged (waiting, held or running), and how long the oldest of
 * them has been there. The same for every worker process: graph one, not their sum.
 */
export function watchTaskQueue(infra: AppContext): void {
  if (infra.config.WORKER_DISPATCH === 'per-account') {
    watchDispatchStream(infra)
    return
  }
  const stream = streamOf('task')
  // Both gauges are read in one scrape: one request to the server serves them.
  let last: { at: number; info: ReturnType<typeof infra.jsm.consumers.info> } | undefined
  const info = () => {
    if (!last || Date.now() - last.at > SCRAPE_MS) last = { at: Date.now(), info: infra.jsm.consumers.info(stream, WORKER_CONSUMER) }
    return last.info
  }
  infra.metrics.gaugeOnScrape('task_queue_depth', 'Tasks whose TaskCreated the workers have not acknowledged: waiting, held or running', async () => {
    const { num_pending, num_ack_pending } = await info()
    return num_pending + num_ack_pending
  })
  infra.metrics.gaugeOnScrape('task_queue_oldest_seconds', 'Age of the oldest TaskCreated the workers have not acknowledged (0 when none)', async () => {
    const { ack_floor } = await info()
    const next = { seq: ack_floor.stream_seq + 1, next_by_subj: eventTypeSubjects('task', 'TaskCreated') }
    const oldest = await infra.jsm.streams.getMessage(stream, next)
    return oldest ? Math.max(0, (Date.now() - oldest.time.getTime()) / 1000) : 0
  })
}

/** The same gauges from the dispatch stream (ADR 0052): its messages are exactly the TaskCreated not yet acknowledged. */
function watchDispatchStream(infra: AppContext): void {
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
