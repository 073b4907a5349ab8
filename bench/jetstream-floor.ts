/**
 * The floor of the end-to-end figure: a task's three events on JetStream with the guarantees
 * mats gives them and nothing else. No HTTP, no read model, no budget, no identity check, no
 * agent: a producer appends TaskCreated-sized messages (`inFlight` at a time, each with a
 * Nats-Msg-Id); a worker on a durable consumer, `concurrency` at a time, appends a started
 * and a completed message guarded by the task's last subject sequence (optimistic concurrency,
 * as mats appends), then acknowledges; one ordered consumer reads everything, as a projector
 * does, and sees each completion. What mats does beyond this floor is what it adds.
 */
import { randomUUID } from 'node:crypto'
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import type { Burst } from './baselines.js'

/** About the sizes of mats' TaskCreated and TaskStarted envelopes, and a completed offline deliverable. */
const CREATED = 'c'.repeat(650)
const STARTED = 's'.repeat(420)
const COMPLETED = 'r'.repeat(5_000)

export async function jetStreamFloorBurst(natsUrl: string, jobs: number, inFlight: number, concurrency: number): Promise<Burst> {
  const nc = await connect({ servers: natsUrl })
  const js = jetstream(nc)
  const jsm = await jetstreamManager(nc)
  const stream = `FLOOR_${randomUUID().slice(0, 8)}`
  const root = stream.toLowerCase()
  await jsm.streams.add({ name: stream, subjects: [`${root}.>`], allow_direct: true })
  await jsm.consumers.add(stream, { durable_name: 'worker', ack_policy: AckPolicy.Explicit, filter_subject: `${root}.*.created`, max_ack_pending: 1000 })
  const createdAt = new Map<string, number>()
  const latencies: number[] = []

  const reader = await (await js.consumers.get(stream, { deliver_policy: DeliverPolicy.All })).consume()
  const allSeen = (async () => {
    for await (const msg of reader) {
      if (!msg.subject.endsWith('.completed')) continue
      latencies.push(Date.now() - createdAt.get(msg.subject.split('.')[1]!)!)
      if (latencies.length === jobs) return
    }
  })()

  const run = async (msg: JsMsg) => {
    const task = msg.subject.split('.')[1]!
    const guard = `${root}.${task}.*`
    const started = await js.publish(`${root}.${task}.started`, STARTED, { msgID: randomUUID(), expect: { lastSubjectSequence: msg.seq, lastSubjectSequenceSubject: guard } })
    await js.publish(`${root}.${task}.completed`, COMPLETED, { msgID: randomUUID(), expect: { lastSubjectSequence: started.seq, lastSubjectSequenceSubject: guard } })
    msg.ack()
  }
  const worker = await (await js.consumers.get(stream, 'worker')).consume({ max_messages: concurrency * 2 })
  const working = (async () => {
    const running = new Set<Promise<void>>()
    let taken = 0
    for await (const msg of worker) {
      const one = run(msg).finally(() => running.delete(one))
      running.add(one)
      if (running.size >= concurrency) await Promise.race(running)
      if (++taken === jobs) break
    }
    await Promise.all(running)
  })()

  const began = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < jobs; i = next++) {
        const task = randomUUID()
        createdAt.set(task, Date.now())
        await js.publish(`${root}.${task}.created`, CREATED, { msgID: randomUUID() })
      }
    }),
  )
  await Promise.all([allSeen, working])
  const rate = jobs / ((Date.now() - began) / 1000)
  await reader.close()
  await worker.close()
  await jsm.streams.delete(stream)
  await nc.close()
  return { rate, latencies }
}
