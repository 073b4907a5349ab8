import t from 'tap'
import type { Test } from 'tap'
import { operator } from '../../src/commands/execute.js'
import { fireTick, type FireContext, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { TickBatch } from '../../src/commands/schedules/tick-batch.js'
import { Kvm } from '@nats-io/kv'
import { Schedule, tickTaskId } from '../../src/domain/schedules/schedule.js'
import { tickFingerprint } from '../../src/domain/tasks/identity.js'
import { Task } from '../../src/domain/tasks/task.js'
import { PendingTasks } from '../../src/infra/nats/pending-tasks.js'
import type { EventStore } from '../../src/infra/nats/event-store.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { createSchedule, firedOf, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

type Appends = Pick<EventStore, 'appendPair' | 'appendPairs'>

/** The event store, counting how pairs reach it: together in one batch, or each alone. */
function counting(events: Appends): Appends & { readonly calls: { pairs: number[]; alone: number } } {
  const calls = { pairs: [] as number[], alone: 0 }
  return {
    calls,
    appendPairs: (pairs) => {
      calls.pairs.push(pairs.length)
      return events.appendPairs(pairs)
    },
    appendPair: (first, second, options) => {
      calls.alone++
      return events.appendPair(first, second, options)
    },
  }
}

async function twoSchedules(t: Test) {
  const servers = await startServers(t)
  // These tests fire ticks by hand, so nothing tries a tick again that a starved machine made 503
  // (the checks past their share of the 2 s answer): NATS is given longer, as an operator may.
  const service = await startTestService(t, servers, { roles: ['api'], env: { NATS_TIMEOUT_MS: '3000' } })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const body = { sessionId, agentType: 'seo', instruction: 'Audit the blog titles', cron: '0 0 1 1 *', overlap: 'allow', catchupWindow: '1h' }
  const ids = [(await createSchedule(caller, body)).body.schedule.id, (await createSchedule(caller, { ...body, instruction: 'Draft the newsletter' })).body.schedule.id]
  const known = await Promise.all(
    ids.map(async (aggregateId): Promise<KnownSchedule> => {
      const key = { accountId: caller.account.id, aggregateId }
      return { key, ...(await service.infra.events.load(Schedule, key)) }
    }),
  )
  const activeFrom = Math.max(...known.map(({ state }) => (state.status === 'active' ? Date.parse(state.activeFrom) : 0)))
  const context: FireContext = { ...service.infra, admitTick: () => true }
  return { service, caller, known, tick: { scheduledFor: new Date(Math.max(Date.now(), activeFrom + 1)) }, context }
}

/** Fires each schedule's tick as one member of a batch of them all. */
function fireTogether(context: FireContext, events: Appends, known: readonly KnownSchedule[], tick: { scheduledFor: Date }) {
  const batch = new TickBatch(events, known.length)
  return Promise.all(
    known.map(async (schedule) => {
      const member = batch.member()
      try {
        return await fireTick({ ...context, appendFired: member.append }, schedule, tick, operator())
      } finally {
        member.done()
      }
    }),
  )
}

t.test('given two schedules of one account due at one instant, when their ticks are fired together, then both are stored in one atomic batch', async (t) => {
  const { service, caller, known, tick, context } = await twoSchedules(t)
  const events = counting(service.infra.events)

  const after = await fireTogether(context, events, known, tick)

  t.same(events.calls, { pairs: [2], alone: 0 }, 'one batch of two pairs')
  for (const [i, schedule] of known.entries()) {
    const fired = firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.key.aggregateId))
    t.equal(fired.length, 1, `schedule ${i} fired once`)
    t.equal(after[i]?.version, fired[0]?.seq, `schedule ${i} known at its ScheduleFired`)
  }
})

t.test("given a schedule's tick, when it is fired, then its task takes no identical-task entry (a KV write per tick for nothing, ADR 0056)", async (t) => {
  const { service, caller, known, tick, context } = await twoSchedules(t)
  const [schedule] = known
  if (!schedule) throw new Error('a schedule expected')

  await fireTick(context, schedule, tick, operator())

  const taskId = tickTaskId(schedule.key.aggregateId, tick.scheduledFor)
  const created = (await service.infra.events.load(Task, { accountId: caller.account.id, aggregateId: taskId })).state
  t.equal(created.status, 'pending', 'the task is created')
  t.equal(created.status === 'pending' && created.identityRevision, undefined, 'with no entry revision to release')
  const bucket = await new Kvm(service.infra.js).open('mats_pending_tasks')
  const entry = await bucket.get(PendingTasks.key(caller.account.id, tickFingerprint(schedule.key.aggregateId, tick.scheduledFor.toISOString())))
  t.equal(entry, null, 'and no entry in the bucket')
})

t.test(
  'given two schedules due at one instant, one of whose tick another scheduler already stored, when fired together, then the batch is refused whole and each tick appended alone: one stored, the other refused by its guard',
  async (t) => {
    const { service, caller, known, tick, context } = await twoSchedules(t)
    const [fresh, stale] = known
    if (!fresh || !stale) throw new Error('two schedules expected')
    await fireTick(context, stale, tick, operator())
    const events = counting(service.infra.events)
    const attempts: string[] = []

    await fireTogether(
      { ...context, onAttempt: (outcome, schedule) => attempts.push(`${schedule.key.aggregateId === fresh.key.aggregateId ? 'fresh' : 'stale'} ${outcome}`) },
      events,
      [fresh, stale],
      tick,
    )

    t.same(events.calls, { pairs: [2], alone: 2 }, 'the batch, then each pair alone')
    t.same(attempts.sort(), ['fresh stored', 'stale refused'])
    for (const schedule of [fresh, stale]) {
      const fired = firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.key.aggregateId))
      t.same(
        fired.map((event) => (event.data as { scheduledFor: string }).scheduledFor),
        [tick.scheduledFor.toISOString()],
        'the tick stored once',
      )
    }
  },
)
