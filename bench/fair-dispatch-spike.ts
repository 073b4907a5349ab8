/**
 * Spike for ADR 0050 (fair dispatch at any depth): what NATS itself costs for the candidate
 * designs, with no mats process. One account floods FLOOD TaskCreated, then 99 others post one.
 *
 *   arrival order  one durable over every TaskCreated (today), fetched 256 at a time: how many
 *                  messages a worker must take before it sees the first of the 99.
 *   per account    a sourced work-queue stream keyed by account (`dispatch.<account>`): the
 *                  stream's per-subject state lists the accounts with waiting work and their
 *                  counts in one request; one durable per account; one message taken from each.
 *   consumer info  per-account durables straight on the task stream: num_pending needs one
 *                  request per account.
 *
 *   node --import tsx bench/fair-dispatch-spike.ts        FLOOD=20000 ACCOUNTS=100
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, type JetStreamManager } from '@nats-io/jetstream'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { startNats } from '../src/infra/local/servers.js'

const FLOOD = Number(process.env.FLOOD ?? 20_000)
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 100)
const say = (line: string) => process.stdout.write(`${line}\n`)
const ms = (since: number) => `${(performance.now() - since).toFixed(0)} ms`

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-fair-spike-'))
  const server = await startNats({ dataDir: dir })
  const nc = await connect({ servers: server.url })
  try {
    const js = jetstream(nc)
    const jsm = await jetstreamManager(nc)
    say(
      `fair dispatch spike: flood ${FLOOD}, ${ACCOUNTS - 1} single-task accounts, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    )
    await jsm.streams.add({ name: 'MATS_TASKS', subjects: ['mats.task.>'] })
    await jsm.streams.add({
      name: 'DISPATCH',
      retention: RetentionPolicy.Workqueue,
      sources: [{ name: 'MATS_TASKS', subject_transforms: [{ src: 'mats.task.*.*.TaskCreated', dest: 'dispatch.{{wildcard(1)}}' }] }],
    })
    let started = performance.now()
    const pubs: Promise<unknown>[] = []
    for (let i = 0; i < FLOOD; i++) pubs.push(js.publish(`mats.task.flood.t${i}.TaskCreated`, '{}'))
    for (let a = 1; a < ACCOUNTS; a++) pubs.push(js.publish(`mats.task.a${a}.t${a}.TaskCreated`, '{}'))
    await Promise.all(pubs)
    say(`published ${FLOOD + ACCOUNTS - 1} TaskCreated in ${ms(started)}`)
    started = performance.now()
    while ((await jsm.streams.info('DISPATCH')).state.messages < FLOOD + ACCOUNTS - 1) await new Promise((r) => setTimeout(r, 20))
    say(`sourced into the work-queue stream by account in ${ms(started)}`)

    await arrivalOrder(jsm, js)
    await perAccount(nc, jsm, js)
    await consumerInfoPerAccount(jsm)
  } finally {
    await nc.close()
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Today: one durable in arrival order; a worker holding 256 sees the 99 only after the flood. */
async function arrivalOrder(jsm: JetStreamManager, js: ReturnType<typeof jetstream>): Promise<void> {
  await jsm.consumers.add('MATS_TASKS', { durable_name: 'arrival', filter_subject: 'mats.task.*.*.TaskCreated', ack_policy: AckPolicy.Explicit, max_ack_pending: -1 })
  const consumer = await js.consumers.get('MATS_TASKS', 'arrival')
  const started = performance.now()
  let taken = 0
  let firstOther = 0
  while (firstOther === 0) {
    const batch = await consumer.fetch({ max_messages: 256, expires: 1000 })
    for await (const msg of batch) {
      taken++
      msg.ack()
      if (firstOther === 0 && !msg.subject.startsWith('mats.task.flood.')) firstOther = taken
    }
  }
  say(`arrival order: the first other account's task is message ${firstOther} taken, in batch ${Math.ceil(firstOther / 256)} of 256 (fetching alone, no runs: ${ms(started)})`)
}

/** The candidate: per-subject state of the dispatch stream, one durable per account, one task from each. */
async function perAccount(nc: NatsConnection, jsm: JetStreamManager, js: ReturnType<typeof jetstream>): Promise<void> {
  let started = performance.now()
  const info = await jsm.streams.info('DISPATCH', { subjects_filter: 'dispatch.*' })
  const waiting = info.state.subjects ?? {}
  say(`per-subject state: ${Object.keys(waiting).length} accounts with waiting work (flood ${waiting['dispatch.flood']}) in one request, ${ms(started)}`)
  started = performance.now()
  const accounts = Object.keys(waiting).map((subject) => subject.slice('dispatch.'.length))
  for (const account of accounts) {
    await jsm.consumers.add('DISPATCH', { durable_name: `acct-${account}`, filter_subject: `dispatch.${account}`, ack_policy: AckPolicy.Explicit, max_ack_pending: -1 })
  }
  say(`${accounts.length} durables, one per account: created in ${ms(started)} (${((performance.now() - started) / accounts.length).toFixed(1)} ms each)`)
  const consumers = await Promise.all(accounts.map((account) => js.consumers.get('DISPATCH', `acct-${account}`)))
  started = performance.now()
  const before = clientMessages(nc)
  let took = 0
  for (const consumer of consumers) {
    const msg = await consumer.next({ expires: 1000 })
    if (msg) {
      took++
      msg.ack()
    }
  }
  const after = clientMessages(nc)
  say(
    `one task from each of ${took} accounts, round-robin, in ${ms(started)}; client messages ${after.out - before.out} out, ${after.in - before.in} in (${((after.out - before.out + after.in - before.in) / took).toFixed(1)} per task)`,
  )
}

/** Per-account durables on the task stream itself: what knowing each account's pending count costs. */
async function consumerInfoPerAccount(jsm: JetStreamManager): Promise<void> {
  const accounts = ['flood', ...Array.from({ length: ACCOUNTS - 1 }, (_, i) => `a${i + 1}`)]
  for (const account of accounts) {
    await jsm.consumers.add('MATS_TASKS', { durable_name: `direct-${account}`, filter_subject: `mats.task.${account}.*.TaskCreated`, ack_policy: AckPolicy.Explicit })
  }
  const started = performance.now()
  let pending = 0
  for (const account of accounts) pending += (await jsm.consumers.info('MATS_TASKS', `direct-${account}`)).num_pending
  say(`consumer info of ${accounts.length} per-account durables on the task stream: ${pending} pending, ${accounts.length} requests, ${ms(started)}`)
}

function clientMessages(nc: NatsConnection): { in: number; out: number } {
  const stats = nc.stats()
  return { in: stats.inMsgs, out: stats.outMsgs }
}

await main()
