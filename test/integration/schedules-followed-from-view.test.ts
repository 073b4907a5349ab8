import t, { type Test } from 'tap'
import { schedulesProjection, type ScheduleDoc } from '../../projections/index.js'
import { FollowedSchedules, type Followed } from '../../consumers/schedules/followed-schedules.js'
import type { AppContext } from '../../src/app-context.js'
import { operator } from '../../src/commands/execute.js'
import { fireTick } from '../../src/commands/schedules/fire-tick.js'
import { Schedule } from '../../src/domain/schedules/schedule.js'
import type { Aggregate, EventDraft } from '../../src/domain/message.js'
import type { AggregateKey, EventStore, LoadOptions } from '../../src/infra/nats/event-store.js'
import { firedOf, scheduleEvents } from '../helpers/schedules.js'
import { schedulesOfOneAccount } from '../helpers/ticks-by-hand.js'

/** The event store, counting the schedules read from the log. */
function countingReads(events: EventStore) {
  const reads = { load: 0, catchUp: 0 }
  const load = <State, Event extends EventDraft>(aggregate: Aggregate<State, Event>, key: AggregateKey, options?: LoadOptions) => {
    reads.load++
    return events.load(aggregate, key, options)
  }
  const catchUp = <State, Event extends EventDraft>(aggregate: Aggregate<State, Event>, key: AggregateKey, known: { readonly state: State; readonly version: number }, options?: LoadOptions) => {
    reads.catchUp++
    return events.catchUp(aggregate, key, known, options)
  }
  return { reads, events: { load, catchUp } }
}

/** Every followed schedule: each is due by the year 3000 (their cron fires on 1 January). */
function everyFollowed(followed: FollowedSchedules): Followed[] {
  return [...followed.dueByAccount(Date.parse('3000-01-02T00:00:00Z'), () => true).values()].flat()
}

/** One schedule not due, its tick to fire by hand, and the schedules read model. */
async function oneSchedule(t: Test) {
  const { service, known, tick, context } = await schedulesOfOneAccount(t, 1)
  const [schedule] = known
  if (!schedule) throw new Error('a schedule was created')
  const { infra } = service
  return { infra, schedule, tick, context, documents: infra.readModels.collection<ScheduleDoc>(schedulesProjection) }
}

/** A scheduler that has just taken every partition, its schedules read from the read model. */
async function takenOver(infra: AppContext): Promise<{ followed: FollowedSchedules; entry: Followed }> {
  const followed = new FollowedSchedules(infra, () => true)
  await followed.readAll()
  const [entry] = everyFollowed(followed)
  if (!entry) throw new Error('the schedule is followed')
  return { followed, entry }
}

/** A schedule's document as it was before its first tick fired, for a test to roll it back to. */
async function documentBefore(infra: AppContext, scheduleId: string) {
  const before = await infra.readModels.collection<ScheduleDoc>(schedulesProjection).findOne({ _id: scheduleId })
  if (!before) throw new Error('the schedule is in the read model')
  return before
}

/**
 * A scheduler taking a partition takes its schedules from the read model, state and `_seq`
 * (ADR 0061): 10,000 of them loaded from the log one by one made a takeover tens of seconds late.
 */
t.test(
  'given active schedules in the read model, one of them fired, when a scheduler takes their partition, then it knows each as the log does, reading only a document written before lastTaskId was kept',
  async (t) => {
    // Given
    const { service, known, tick, context } = await schedulesOfOneAccount(t, 3)
    const { infra } = service
    const [fired, , old] = known
    if (!fired || !old) throw new Error('three schedules were created')
    await fireTick(context, fired, tick, operator())
    await infra.readModels.collection<ScheduleDoc>(schedulesProjection).updateOne({ _id: old.key.aggregateId }, { $unset: { lastTaskId: '' } })
    const counted = countingReads(infra.events)

    // When
    const followed = new FollowedSchedules({ readModels: infra.readModels, events: counted.events }, () => true)
    await followed.readAll()

    // Then
    const entries = everyFollowed(followed)
    t.equal(entries.length, 3, 'every active schedule followed')
    for (const { key } of known) {
      const entry = entries.find((candidate) => candidate.known.key.aggregateId === key.aggregateId)
      const log = await infra.events.load(Schedule, key)
      t.same(entry?.known.state, log.state, 'the state the log folds to')
      t.equal(entry?.known.version, log.version, 'the version its next tick is guarded by')
    }
    const firedState = entries.find((entry) => entry.known.key.aggregateId === fired.key.aggregateId)?.known.state
    t.ok(firedState?.status === 'active' && firedState.lastTaskId, 'the fired one knows the task overlap waits for')
    t.same(counted.reads, { load: 1, catchUp: 0 }, 'read from the log: only the document without lastTaskId')
  },
)

t.test(
  'given a schedule whose document is behind the log, when a scheduler takes it from the document and decides the tick already stored, then the guard refuses it and the tick stays fired once',
  async (t) => {
    // Given: its tick fired, and the document rolled back to before it (a projection behind)
    const { infra, schedule, tick, context, documents } = await oneSchedule(t)
    const before = await documentBefore(infra, schedule.key.aggregateId)
    await fireTick(context, schedule, tick, operator())
    await documents.replaceOne({ _id: schedule.key.aggregateId }, before)
    const { entry } = await takenOver(infra)
    t.equal(entry.known.version, before._seq, 'taken at the version the document shows')

    // When
    const outcomes: string[] = []
    const after = await fireTick({ ...context, onAttempt: (outcome) => outcomes.push(outcome) }, entry.known, tick, operator())

    // Then
    t.same(outcomes, ['refused'], 'refused by the guard')
    t.equal(firedOf(await scheduleEvents(infra, schedule.key.accountId, schedule.key.aggregateId)).length, 1, 'the tick fired once')
    t.equal(after.version, (await infra.events.load(Schedule, schedule.key)).version, 'the scheduler caught up with the log')
    t.equal(after.state.status === 'active' && after.state.lastTick, tick.scheduledFor.toISOString(), 'and knows the tick decided')
  },
)

t.test(
  'given a schedule whose document is ahead of the log (a stream restored from an older backup), when a scheduler takes it from the document, then its tick is refused once, the log read, and the tick fired',
  async (t) => {
    // Given
    const { infra, schedule, tick, context, documents } = await oneSchedule(t)
    await documents.updateOne({ _id: schedule.key.aggregateId }, { $set: { _seq: schedule.version + 1_000_000 } })
    const { followed, entry } = await takenOver(infra)

    // When: decided as the scheduler does, what the decision ended with remembered
    const outcomes: string[] = []
    const counted = { ...context, onAttempt: (outcome: 'stored' | 'refused') => outcomes.push(outcome) }
    const refused = await fireTick(counted, entry.known, tick, operator())
    followed.remember(refused, entry.known)
    const [after] = everyFollowed(followed)
    if (!after) throw new Error('the schedule is still followed')
    const fired = await fireTick(counted, after.known, tick, operator())

    // Then
    t.same(outcomes, ['refused', 'stored'], 'refused against the version the document showed, stored against the log')
    t.equal(refused.version, schedule.version, 'the version read from the log')
    t.equal(firedOf(await scheduleEvents(infra, schedule.key.accountId, schedule.key.aggregateId)).length, 1, 'the tick fired once')
    t.equal(fired.state.status === 'active' && fired.state.lastTick, tick.scheduledFor.toISOString())
  },
)

t.test('given a schedule whose document is behind the log, when a tick is stored inline after it, then the document is left to the projector, not moved past the tick it lacks', async (t) => {
  // Given: its first tick fired, the document rolled back to before it
  const { infra, schedule, tick, context, documents } = await oneSchedule(t)
  const before = await documentBefore(infra, schedule.key.aggregateId)
  const afterFirst = await fireTick(context, schedule, tick, operator())
  await documents.replaceOne({ _id: schedule.key.aggregateId }, before)

  // When: the next tick, decided from the log
  const next = { scheduledFor: new Date(tick.scheduledFor.getTime() + 1000) }
  const afterSecond = await fireTick(context, afterFirst, next, operator())

  // Then
  t.equal(afterSecond.version > afterFirst.version, true, 'the second tick stored')
  t.strictSame(await documents.findOne({ _id: schedule.key.aggregateId }), before, 'the document as it was: folding the second tick alone onto it would lose the first')
})
