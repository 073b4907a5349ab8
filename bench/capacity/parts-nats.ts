/**
 * Parts of a task on NATS, with nats.js as mats uses it: a guarded append and its ack, a KV
 * create, a direct get, a publish, a delivery from a durable consumer and its ack, one from an
 * ordered consumer. The messages are a no-op task's own three events, in turn.
 */
import { randomUUID } from 'node:crypto'
import { AckPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { headers } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import type { StoredMessage } from '../../src/infra/nats/decode.js'
import { cpuMicrosSince, nextTurn } from './parts-cpu.js'
import type { Stoppers } from './servers.js'

export interface NatsParts {
  append(i: number): Promise<unknown>
  kvCreate(i: number): Promise<unknown>
  /** A subject's last message, as the log reader reads an aggregate. */
  directGet(i: number): Promise<unknown>
  /** A core publish with no answer asked (the identity entry let go), on a turn of the event loop of its own. */
  publish(i: number): Promise<void>
  /** µs of CPU per message delivered from a durable consumer and acknowledged (the worker's task), `count` of them. */
  deliveryAndAck(count: number): Promise<number>
  /** µs of CPU per message read by an ordered consumer (as projectors and live views read), `count` of them. */
  orderedDelivery(count: number): Promise<number>
}

export async function natsParts(natsUrl: string, stoppers: Stoppers, events: readonly StoredMessage[]): Promise<NatsParts> {
  const nc = await connect({ servers: natsUrl, noAsyncTraces: true })
  stoppers.add({ stop: () => nc.close() })
  const js = jetstream(nc)
  const jsm = await jetstreamManager(nc)
  const run = randomUUID().slice(0, 8)
  const stream = `PARTS_${run}`
  await jsm.streams.add({ name: stream, subjects: [`parts.${run}.>`], allow_direct: true })
  const kv = await new Kvm(nc).create(`parts_${run}`)
  const payload = (i: number) => events[i % events.length]?.data ?? new Uint8Array()
  let appended = 0

  /** µs of CPU per message read from a stream filled with `count` of the task's events; the consumer is made before the clock starts. */
  const readFilled = async (count: number, ack: boolean, consumer: (stream: string) => Promise<ConsumerMessages>): Promise<number> => {
    const filled = `PARTS_Q_${randomUUID().slice(0, 8)}`
    await jsm.streams.add({ name: filled, subjects: [`${filled}.>`] })
    try {
      await Promise.all(Array.from({ length: count }, (_, i) => js.publish(`${filled}.${i}`, payload(i))))
      const messages = await consumer(filled)
      const started = process.cpuUsage()
      let seen = 0
      for await (const msg of messages) {
        if (ack) msg.ack()
        if (++seen === count) break
      }
      return cpuMicrosSince(started) / count
    } finally {
      await jsm.streams.delete(filled)
    }
  }

  return {
    append: (i) => {
      const id = appended++
      const h = headers()
      h.set('Nats-Msg-Id', `${run}-${id}`)
      return js.publish(`parts.${run}.task.${id}`, payload(i), { headers: h, expect: { lastSubjectSequence: 0 } })
    },
    kvCreate: () => kv.create(`k.${randomUUID()}`, new TextEncoder().encode(randomUUID())),
    directGet: (i) => jsm.direct.getMessage(stream, { last_by_subj: `parts.${run}.task.${i % Math.max(1, appended)}` }),
    publish: (i) => {
      nc.publish(`parts.${run}.released.${i % 100}`)
      return nextTurn()
    },
    deliveryAndAck: (count) =>
      readFilled(count, true, async (filled) => {
        await jsm.consumers.add(filled, { durable_name: 'worker', ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 })
        return (await js.consumers.get(filled, 'worker')).consume({ max_messages: 8 })
      }),
    orderedDelivery: (count) => readFilled(count, false, async (filled) => (await js.consumers.get(filled)).consume()),
  }
}
