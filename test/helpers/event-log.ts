import type { RecordedEvent } from '../../src/domain/message.js'
import type { AppContext } from '../../src/app-context.js'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import { whileUnreachable } from '../../src/infra/while-unreachable.js'

/** A read asked again when NATS is too slow to answer in time, as on a starved machine: reading twice is harmless. */
const patiently = <T>(read: () => Promise<T>) => whileUnreachable(read, { forMs: 30_000 })

/** Every event of one stream, in log order. */
export async function streamEvents(infra: AppContext, stream: string): Promise<RecordedEvent[]> {
  const { state } = await patiently(() => infra.jsm.streams.info(stream))
  const events: RecordedEvent[] = []
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
    const msg = await patiently(() => infra.jsm.streams.getMessage(stream, { seq }))
    if (msg) events.push(decodeEvent(msg))
  }
  return events
}

/** The events of one aggregate, optionally of one type, in log order. */
export const eventsOf = (events: readonly RecordedEvent[], aggregateId: string, type?: string): RecordedEvent[] =>
  events.filter((e) => e.aggregateId === aggregateId && (type === undefined || e.type === type))
