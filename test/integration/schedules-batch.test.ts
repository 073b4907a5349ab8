import t from 'tap'
import type { Test } from 'tap'
import { operator } from '../../src/commands/execute.js'
import { fireTick } from '../../src/commands/schedules/fire-tick.js'
import { tickAppends } from '../../src/commands/schedules/tick-batch.js'
import { Kvm } from '@nats-io/kv'
import { tickTaskId } from '../../src/domain/schedules/schedule.js'
import { tickFingerprint } from '../../src/domain/tasks/identity.js'
import { Task } from '../../src/domain/tasks/task.js'
import { PendingTasks } from '../../src/infra/nats/pending-tasks.js'
import { firedOf, scheduleEvents } from '../helpers/schedules.js'
import { counting, fireTogether, schedulesOfOneAccount } from '../helpers/ticks-by-hand.js'

const twoSchedules = (t: Test) => schedulesOfOneAccount(t, 2)

t.test('given two schedules of one account due at one instant, when their ticks are fired together, then both are stored in one atomic batch', async (t) => {
  const { service, caller, known, tick, context } = await twoSchedules(t)
  const events = counting(service.infra.events)

  const after = await fireTogether(context, tickAppends(events), known, tick)

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
      tickAppends(events),
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
