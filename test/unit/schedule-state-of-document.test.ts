import { randomUUID } from 'node:crypto'
import t from 'tap'
import { aScheduleSpec } from '../helpers/mothers.js'
import { scheduleDocFromHistory, scheduleStateOf } from '../../projections/index.js'
import type { Recorded } from '../../src/domain/message.js'
import { Schedule, type ScheduleEvent, type ScheduleState } from '../../src/domain/schedules/schedule.js'

const spec = aScheduleSpec({ sessionId: randomUUID() })
const firstTask = randomUUID()
const secondTask = randomUUID()

/** A schedule's life: every event type, skips after its last fired tick. */
const life: ScheduleEvent[] = [
  { type: 'ScheduleCreated', data: { ...spec, activeFrom: '2026-11-26T10:00:00.000Z', paused: false } },
  { type: 'ScheduleFired', data: { scheduledFor: '2026-11-26T10:01:00.000Z', taskId: firstTask } },
  { type: 'ScheduleChanged', data: { ...spec, instruction: 'Audit the blog and the docs', activeFrom: '2026-11-26T10:00:00.000Z' } },
  { type: 'SchedulePaused', data: {} },
  { type: 'ScheduleResumed', data: { activeFrom: '2026-11-26T10:05:30.000Z' } },
  { type: 'ScheduleFired', data: { scheduledFor: '2026-11-26T10:06:00.000Z', taskId: secondTask } },
  { type: 'ScheduleTickSkipped', data: { scheduledFor: '2026-11-26T10:07:00.000Z', reason: 'overlap' } },
  { type: 'ScheduleTickSkipped', data: { scheduledFor: '2026-11-26T10:09:00.000Z', reason: 'outside_catchup_window', missedTicks: 2 } },
]

function recorded(events: readonly ScheduleEvent[]): Recorded<ScheduleEvent>[] {
  const accountId = randomUUID()
  const aggregateId = randomUUID()
  return events.map((event, i) => ({
    ...event,
    id: randomUUID(),
    version: Schedule.versions[event.type],
    occurredAt: '2026-11-26T10:00:00.000Z',
    accountId,
    aggregateId,
    metadata: { correlationId: randomUUID(), causationId: null, keyId: null },
    seq: i + 1,
    subject: `mats.schedule.${accountId}.${aggregateId}.${event.type}`,
  }))
}

const fold = (events: readonly ScheduleEvent[]): ScheduleState => events.reduce(Schedule.evolve, Schedule.initialState)

t.test('given any prefix of a schedule’s life, when its state is read from its document, then it is the state its events fold to', async (t) => {
  for (let length = 1; length <= life.length; length++) {
    const events = life.slice(0, length)
    const doc = scheduleDocFromHistory(recorded(events))
    if (!doc) throw new Error('a created schedule has a document')
    t.strictSame(scheduleStateOf(doc), fold(events), `after ${events.at(-1)?.type} (${length} events)`)
  }
})

t.test(
  'given a document written before lastTaskId was kept, or ticked since by a projector that did not keep it, when its state is read, then there is none (the scheduler reads the log)',
  async (t) => {
    const doc = scheduleDocFromHistory(recorded(life))
    if (!doc) throw new Error('a created schedule has a document')
    const { lastTaskId: _, ...older } = doc
    t.equal(scheduleStateOf(older), null, 'without lastTaskId')
    const tickedByAnOlderProjector = { ...doc, recentFirings: [{ scheduledFor: '2026-11-26T10:10:00.000Z', taskId: randomUUID() }, ...doc.recentFirings] }
    t.equal(scheduleStateOf(tickedByAnOlderProjector), null, 'a later fired tick than lastTaskId tells')
    const state = scheduleStateOf(doc)
    t.equal(state?.status === 'active' && state.lastTaskId, secondTask, 'the task of the last fired tick, past the skips after it')
  },
)
