import t from 'tap'
import { operator } from '../../src/commands/execute.js'
import { fireTick, type FireContext, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { nextFireAfter } from '../../src/commands/schedules/fire-times.js'
import { Schedule } from '../../src/domain/schedules/schedule.js'
import { streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { createSchedule, firedOf, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

/**
 * The moment a partition changes hands (ADR 0047): the scheduler that held it and the one
 * taking it over both decide a tick from the same state. The schedule's guard stores it once.
 */
t.test('given two schedulers deciding the same tick from the same state, as at a takeover, then it is stored once and the other attempt refused by the guard', async (t) => {
  const servers = await startServers(t)
  // No scheduler role: this test is the two schedulers.
  // These tests fire ticks by hand, so nothing tries a tick again that a starved machine made 503
  // (the checks past their share of the 2 s answer): NATS is given longer, as an operator may.
  const service = await startTestService(t, servers, { roles: ['api', 'projector'], env: { NATS_TIMEOUT_MS: '3000' } })
  const { infra } = service
  const caller = await aCaller(infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const body = { sessionId, agentType: 'seo', instruction: 'Draft the weekly digest', every: '1s', overlap: 'allow' }
  const key = { accountId: caller.account.id, aggregateId: (await createSchedule(caller, body)).body.schedule.id }
  const outcomes: string[] = []
  const context: FireContext = { ...infra, admitTick: () => true, onAttempt: (outcome) => outcomes.push(outcome) }
  const loaded: KnownSchedule = { key, ...(await infra.events.load(Schedule, key)) }
  if (loaded.state.status !== 'active') throw new Error('the schedule is active')
  const { spec } = loaded.state
  const first = nextFireAfter(spec, new Date(loaded.state.activeFrom))
  if (!first) throw new Error('a 1s schedule has a next tick')

  // When: both at once, then one after the other with what it knew before the other stored
  const [a, b] = await Promise.all([fireTick(context, loaded, { scheduledFor: first }, operator()), fireTick(context, loaded, { scheduledFor: first }, operator())])
  const second = nextFireAfter(spec, first)
  if (!second) throw new Error('a 1s schedule has a tick after each')
  const formerHolder = await fireTick(context, a, { scheduledFor: second }, operator())
  const newHolder = await fireTick(context, a, { scheduledFor: second }, operator())

  // Then
  const ticks = firedOf(await scheduleEvents(infra, key.accountId, key.aggregateId)).map((event) => (event.data as { scheduledFor: string }).scheduledFor)
  t.same(ticks, [first.toISOString(), second.toISOString()], 'each tick fired once')
  const tasks = (await streamEvents(infra, 'MATS_TASKS')).filter((event) => event.type === 'TaskCreated' && (event.data as { scheduleId?: string }).scheduleId === key.aggregateId)
  t.equal(tasks.length, 2, 'one task per tick')
  t.same(outcomes.sort(), ['refused', 'refused', 'stored', 'stored'], 'one attempt per tick refused by the guard')
  for (const known of [a, b, formerHolder, newHolder]) t.ok(known.version >= a.version, 'the refused scheduler learns the stored tick')
  t.equal(newHolder.state.status === 'active' && newHolder.state.lastTick, second.toISOString(), 'and knows the tick decided')
  t.equal(b.state.status === 'active' && b.state.lastTick, first.toISOString())
})
