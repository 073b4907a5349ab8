/**
 * Target 3, fairness at depth.
 *
 *   TARGETS=fairness npm run bench:capacity      FLOOD=20000 ACCOUNTS=100 FAIR_CONCURRENCY=100 TASK_MS=2000
 *
 * One `worker` process at WORKER_CONCURRENCY=FAIR_CONCURRENCY (offline agents of TASK_MS, so
 * that the flood outlasts its posting), beside an `api` + `projector` process. One account
 * POSTs FLOOD tasks; once they are all queued, each of the ACCOUNTS − 1 others POSTs one: how
 * long from each of those POSTs to its TaskStarted in the log (p50, p99, max), with the depth
 * of the queue (from nats-server's `/jsz`) at the time.
 */
import { percentile } from '../stats.js'
import { clients, postTask } from './accounts.js'
import { capacityServers, Stoppers } from './servers.js'
import { startMatsProcess } from './service-process.js'
import { dispatchQueue } from './settle.js'
import { TaskWatch } from './task-watch.js'

const FLOOD = Number(process.env.FLOOD ?? 20_000)
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 100)
const CONCURRENCY = Number(process.env.FAIR_CONCURRENCY ?? 100)
const TASK_MS = Number(process.env.TASK_MS ?? 2000)
const WAIT_MS = Number(process.env.FAIR_WAIT_MS ?? 600_000)
const POSTING = 20
const say = (line: string) => process.stdout.write(`${line}\n`)

let retried503 = 0

/** A 503 is "retry later" (the spec): the flood's client does, as a client would, so that a busy log does not end the run. */
async function postRetrying503<T>(post: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await post()
    } catch (err) {
      if (!String(err).includes('POST /v1/tasks: 503')) throw err
      retried503++
      await new Promise((r) => setTimeout(r, 1000))
    }
  }
}

export async function main(): Promise<void> {
  say(
    `\ntarget 3: fairness at depth; one account floods ${FLOOD.toLocaleString('en-US')} tasks, then ${ACCOUNTS - 1} others post one each; worker concurrency ${CONCURRENCY}, runs of ${TASK_MS} ms, per-account dispatch`,
  )
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers())
    const common = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, RATE_LIMITS_ENABLED: 'false', OFFLINE_AGENT_LATENCY_MS: String(TASK_MS) }
    const api = stoppers.add(await startMatsProcess({ roles: ['api', 'projector'], env: common }))
    const url = api.url ?? ''
    const [flooder, ...others] = await clients(servers.natsUrl, servers.mongoUrl, url, ACCOUNTS)
    if (!flooder) throw new Error('no clients')
    stoppers.add(await startMatsProcess({ roles: ['worker'], env: { ...common, WORKER_CONCURRENCY: String(CONCURRENCY) } }))
    const watch = await TaskWatch.open(servers.natsUrl)
    stoppers.add({ stop: () => watch.close() })
    const flooding = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: POSTING }, async () => {
        for (let i = next++; i < FLOOD; i = next++) await postRetrying503(() => postTask(url, flooder, `Flood brief ${i}: plan the launch posts`))
      }),
    )
    const depth = (await dispatchQueue(servers.monitorUrl)).held
    say(
      `  flood posted in ${((performance.now() - flooding) / 1000).toFixed(0)} s (${retried503} POSTs answered 503 and sent again); ${depth.toLocaleString('en-US')} tasks queued or running when the others post`,
    )
    const sent = await Promise.all(
      others.map(async (client, i) => {
        const at = performance.now()
        return { id: (await postTask(url, client, `Single brief ${i}: plan the launch posts`)).id, at }
      }),
    )
    const deadline = Date.now() + WAIT_MS
    while (Date.now() < deadline && sent.some(({ id }) => watch.times(id).TaskStarted === undefined)) await new Promise((r) => setTimeout(r, 200))
    const waits = sent.map(({ id, at }) => (watch.times(id).TaskStarted ?? Number.POSITIVE_INFINITY) - at)
    const notStarted = waits.filter((w) => !Number.isFinite(w)).length
    const ms = (v: number) => (Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : `not within ${WAIT_MS / 1000} s`)
    say(
      `  the ${others.length} single tasks, POST → TaskStarted: p50 ${ms(percentile(waits, 50))}, p99 ${ms(percentile(waits, 99))} (goal ≤ 2 s), max ${ms(Math.max(...waits))}; ${notStarted} not started`,
    )
  } finally {
    await stoppers.stopAll()
  }
}
