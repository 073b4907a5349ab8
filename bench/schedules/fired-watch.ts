/**
 * Watches every ScheduleFired and ScheduleTickSkipped the log stores from now on (an ordered
 * consumer in the bench's own process), and keeps, per tick, how late each was stored: the
 * message's stored time minus `scheduledFor`. ScheduleFired is stored in one atomic batch with
 * its task's TaskCreated (ADR 0039), so its stored time is the task's.
 */
import { jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { eventSubjectParts, eventTypeSubjects } from '../../src/infra/nats/subjects.js'

export interface Tick {
  /** Delay from `scheduledFor` to the ScheduleFired stored (its task's TaskCreated is in the same atomic batch), and the schedule's account. */
  readonly fired: { readonly delayMs: number; readonly accountId: string }[]
  skipped: number
}

export interface FiredWatch {
  /** Ticks by `scheduledFor` (ISO). */
  readonly ticks: Map<string, Tick>
  stop(): Promise<void>
}

export async function watchFired(natsUrl: string): Promise<FiredWatch> {
  const nc = await connect({ servers: natsUrl })
  const js = jetstream(nc)
  const { state } = await (await jetstreamManager(nc)).streams.info('MATS_TASKS')
  const consumer = await js.consumers.get('MATS_TASKS', {
    filter_subjects: [eventTypeSubjects('schedule', 'ScheduleFired'), eventTypeSubjects('schedule', 'ScheduleTickSkipped')],
    opt_start_seq: state.last_seq + 1,
  })
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 1024 })
  const ticks = new Map<string, Tick>()
  const pump = (async () => {
    for await (const msg of messages) {
      const { data } = msg.json<{ data: { scheduledFor: string } }>()
      const tick = ticks.get(data.scheduledFor) ?? { fired: [], skipped: 0 }
      ticks.set(data.scheduledFor, tick)
      const { type, accountId } = eventSubjectParts(msg.subject)
      if (type === 'ScheduleTickSkipped') tick.skipped++
      else tick.fired.push({ delayMs: msg.info.timestampNanos / 1e6 - Date.parse(data.scheduledFor), accountId })
    }
  })()
  return {
    ticks,
    async stop() {
      messages.stop()
      await pump.catch(() => undefined)
      await nc.close()
    },
  }
}
