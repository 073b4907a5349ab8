/** Parts of a task on NATS, with nats.js as mats uses it: a guarded append and its ack, a KV create, a direct get, a delivery from a durable consumer and its ack, one from an ordered consumer. */
import { randomUUID } from 'node:crypto'
import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { headers } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import type { Stoppers } from './servers.js'

/** About the size of mats' TaskCreated envelope. */
const EVENT = new TextEncoder().encode(JSON.stringify({ data: 'c'.repeat(650) }))

export interface NatsParts {
  append(i: number): Promise<unknown>
  kvCreate(i: number): Promise<unknown>
  /** A core publish with no answer asked (the identity entry let go, the workers' doorbell), on a turn of the event loop of its own as in mats. */
  publish(i: number): Promise<void>
  /** A subject's last message, as the log reader reads an aggregate. */
  directGet(i: number): Promise<unknown>
  /** µs of CPU per message delivered from a durable consumer and acknowledged, `count` of them. */
  deliveryAndAck(count: number): Promise<number>
  /** µs of CPU per message read by an ordered consumer (as projectors and live views read), `count` of them. */
  orderedDelivery(count: number): Promise<number>
}

export async function natsParts(natsUrl: string, stoppers: Stoppers): Promise<NatsParts> {
  const nc = await connect({ servers: natsUrl, noAsyncTraces: true })
  stoppers.add({ stop: () => nc.close() })
  const js = jetstream(nc)
  const jsm = await jetstreamManager(nc)
  const run = randomUUID().slice(0, 8)
  await jsm.streams.add({ name: `PARTS_${run}`, subjects: [`parts.${run}.>`], allow_direct: true })
  const kv = await new Kvm(nc).create(`parts_${run}`)
  let appended = 0
  /** µs of CPU per message read and (where the consumer wants it) acknowledged, from a stream filled with `count` first. */
  const readFilled = async (count: number, ack: boolean, consumer: (stream: string) => Promise<AsyncIterable<JsMsg>>): Promise<number> => {
    const stream = `PARTS_Q_${randomUUID().slice(0, 8)}`
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] })
    await Promise.all(Array.from({ length: count }, (_, i) => js.publish(`${stream}.${i}`, EVENT)))
    const started = process.cpuUsage()
    let seen = 0
    for await (const msg of await consumer(stream)) {
      if (ack) msg.ack()
      if (++seen === count) break
    }
    const used = process.cpuUsage(started)
    await jsm.streams.delete(stream)
    return (used.user + used.system) / count
  }
  return {
    append: () => {
      const id = appended++
      const h = headers()
      h.set('Nats-Msg-Id', `${run}-${id}`)
      return js.publish(`parts.${run}.task.${id}`, EVENT, { headers: h, expect: { lastSubjectSequence: 0 } })
    },
    publish: (i) => {
      nc.publish(`parts.${run}.ring.${i % 100}`)
      return new Promise((resolve) => setImmediate(resolve))
    },
    kvCreate: () => kv.create(`k.${randomUUID()}`, EVENT),
    directGet: (i) => jsm.direct.getMessage(`PARTS_${run}`, { last_by_subj: `parts.${run}.task.${i % Math.max(1, appended)}` }),
    deliveryAndAck: (count) =>
      readFilled(count, true, async (stream) => {
        await jsm.consumers.add(stream, { durable_name: 'worker', ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 })
        return (await js.consumers.get(stream, 'worker')).consume({ max_messages: 8 })
      }),
    orderedDelivery: (count) => readFilled(count, false, async (stream) => (await js.consumers.get(stream)).consume()),
  }
}
