import { randomUUID } from 'node:crypto'
import t from 'tap'
import { operator } from '../../src/commands/execute.js'
import { createSchedule as createScheduleCommand } from '../../src/commands/schedules/manage.js'
import { countLiveSchedules } from '../../projections/index.js'
import { KnownSessions } from '../../src/queries/require-session.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { createSchedule, firedOf, patchSchedule, scheduleEvents, skippedOf, type ScheduleAnswer } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// No worker: a schedule's task stays pending, which is what overlap `skip` waits on.
const service = await startTestService(t, servers, { roles: ['api', 'projector', 'scheduler'], env: { SCHEDULES_PER_ACCOUNT: '3', SCHEDULER_REFRESH_MS: '200' } })
const { infra } = service

async function aCallerWithSession(overrides: { monthlyBudgetUsd?: number } = {}): Promise<Caller & { sessionId: string }> {
  const caller = await aCaller(infra, service.url, overrides)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  return { ...caller, sessionId: session.body.session.id }
}
const brief = (sessionId: string, extra: Record<string, unknown> = {}) => ({ sessionId, agentType: 'seo', instruction: 'Audit the blog for broken links', ...extra })
const events = (caller: Caller, id: string) => scheduleEvents(infra, caller.account.id, id)

t.test('given a schedule every second, when it fires, then each tick creates one task that carries the schedule and the tick', async (t) => {
  const caller = await aCallerWithSession()
  // When
  const created = await createSchedule(caller, brief(caller.sessionId, { every: '1s', overlap: 'allow' }))
  // Then
  t.equal(created.status, 201)
  const schedule = created.body.schedule
  t.equal(created.headers.get('location'), `/v1/schedules/${schedule.id}`)
  t.match(schedule, { every: '1s', cron: null, timezone: 'UTC', overlap: 'allow', catchupWindow: '1m', paused: false, priority: 'normal' })
  t.equal(schedule.nextRuns.length, 5)
  t.equal(Date.parse(schedule.nextRuns[1] ?? '') - Date.parse(schedule.nextRuns[0] ?? ''), 1000, 'one second apart')
  const fired = await until('three ticks fired', async () => {
    const found = firedOf(await events(caller, schedule.id))
    return found.length >= 3 && found
  })
  const tasks = await until('the tasks listed by schedule', async () => {
    const answer = await caller.api.get<{ tasks: { id: string; scheduleId: string; scheduledFor: string; status: string }[] }>(`/v1/tasks?scheduleId=${schedule.id}&limit=100`)
    return answer.body.tasks.length >= 3 && answer.body.tasks
  })
  for (const event of fired) {
    const { taskId, scheduledFor } = event.data as { taskId: string; scheduledFor: string }
    const task = tasks.find((candidate) => candidate.id === taskId)
    t.ok(task, `the task of ${scheduledFor} is listed`)
    t.match(task, { scheduleId: schedule.id, scheduledFor, status: 'pending' })
  }
  const firstTaskId = (fired[0]?.data as { taskId?: string } | undefined)?.taskId
  const read = await caller.api.get<ScheduleAnswer>(`/v1/schedules/${schedule.id}`)
  t.ok(
    read.body.schedule.recentFirings.some((firing) => 'taskId' in firing && firing.taskId === firstTaskId),
    'recentFirings names the tasks',
  )
  t.equal((await caller.api.request('DELETE', `/v1/schedules/${schedule.id}`)).status, 204)
})

t.test('given overlap skip (the default) and no worker, when the next ticks come, then they are skipped as overlap', async (t) => {
  const caller = await aCallerWithSession()
  const schedule = (await createSchedule(caller, brief(caller.sessionId, { every: '1s' }))).body.schedule
  // When / Then
  const history = await until('two ticks skipped as overlap', async () => {
    const found = await events(caller, schedule.id)
    return skippedOf(found, 'overlap').length >= 2 && found
  })
  t.equal(firedOf(history).length, 1, 'one task, pending all along')
  await caller.api.request('DELETE', `/v1/schedules/${schedule.id}`)
})

t.test('given a paused schedule, when time passes and it is resumed, then it fires only after the resumption', async (t) => {
  const caller = await aCallerWithSession()
  const schedule = (await createSchedule(caller, brief(caller.sessionId, { every: '1s', overlap: 'allow', paused: true }))).body.schedule
  t.same(schedule.nextRuns, [], 'a paused schedule has no next runs')
  const quietUntil = Date.now() + 2500
  await until('2.5 s of a paused schedule', () => Date.now() > quietUntil, 10_000)
  t.equal((await events(caller, schedule.id)).filter((event) => event.type.startsWith('Schedule') && event.type !== 'ScheduleCreated').length, 0, 'nothing fired while paused')
  // When
  const resumed = await patchSchedule(caller, schedule.id, { paused: false })
  // Then
  t.equal(resumed.status, 200)
  t.equal(resumed.body.schedule.paused, false)
  const resumedAt = Date.now()
  const fired = await until('a tick after the resumption', async () => firedOf(await events(caller, schedule.id))[0])
  t.ok(Date.parse((fired.data as { scheduledFor: string }).scheduledFor) > resumedAt - 1000, 'no tick of the paused time is caught up')
  // When paused again
  t.equal((await patchSchedule(caller, schedule.id, { paused: true })).body.schedule.paused, true)
  const count = firedOf(await events(caller, schedule.id)).length
  const later = Date.now() + 2500
  await until('2.5 s after pausing', () => Date.now() > later, 10_000)
  t.ok(firedOf(await events(caller, schedule.id)).length <= count + 1, 'at most the tick in flight while pausing')
})

t.test('given a spent budget, when a tick comes, then it is skipped as budget_exhausted', async (t) => {
  const caller = await aCallerWithSession({ monthlyBudgetUsd: 0 })
  const schedule = (await createSchedule(caller, brief(caller.sessionId, { every: '1s', overlap: 'allow' }))).body.schedule
  const history = await until('a tick skipped for the budget', async () => {
    const found = await events(caller, schedule.id)
    return skippedOf(found, 'budget_exhausted').length >= 2 && found
  })
  t.equal(firedOf(history).length, 0, 'no task')
})

t.test('given a schedule whose session is not there, when a tick comes, then it is skipped as session_missing', async (t) => {
  const caller = await aCallerWithSession()
  const missing = randomUUID()
  // The API refuses a session that is not there (404); a command whose cache believes in it writes the schedule all the same.
  const knownSessions = new KnownSessions()
  knownSessions.remember(caller.account.id, missing)
  const context = { ...infra, knownSessions, countLiveSchedules: (accountId: string) => countLiveSchedules(infra.readModels, accountId) }
  const scheduleId = randomUUID()
  // When
  await createScheduleCommand(context, caller.account.id, scheduleId, { ...brief(missing), agentType: 'seo', every: '1s' }, operator())
  // Then
  await until('a tick skipped for the session', async () => skippedOf(await events(caller, scheduleId), 'session_missing').length >= 1)
  t.pass('skipped, not an error loop')
})

t.test('given bad timings, when a schedule is created, then 400 names the field', async (t) => {
  const caller = await aCallerWithSession()
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ cron: '0 9 * * *', every: '1h' }, /exactly one of cron and every/],
    [{}, /exactly one of cron and every/],
    [{ every: '500ms' }, /every/],
    [{ every: '0s' }, /every/],
    [{ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, /timezone/],
    [{ cron: '61 9 * * *' }, /cron/],
    [{ cron: '* * * *  * * *' }, /cron/],
    [{ every: '1h', overlap: 'queue' }, /overlap/],
    [{ every: '1h', catchupWindow: 'soon' }, /catchupWindow/],
  ]
  for (const [timing, field] of cases) {
    const answer = await createSchedule(caller, brief(caller.sessionId, timing))
    t.equal(answer.status, 400, JSON.stringify(timing))
    t.match(answer.body.error, field, JSON.stringify(timing))
    t.equal(answer.body.code, 'invalid_request')
  }
  t.equal((await createSchedule(caller, brief(randomUUID(), { every: '1h' }))).status, 404, 'a session not the caller’s')
})

t.test('given an account at its cap, when it creates one more, then 409 schedule_limit_reached', async (t) => {
  const caller = await aCallerWithSession()
  for (let i = 0; i < 3; i++) t.equal((await createSchedule(caller, brief(caller.sessionId, { cron: '0 9 * * 1', paused: i === 0 }))).status, 201)
  const refused = await createSchedule(caller, brief(caller.sessionId, { cron: '0 9 * * 1' }))
  t.equal(refused.status, 409)
  t.equal(refused.body.code, 'schedule_limit_reached')
})

t.test("given another account's schedule, when it is read, changed or deleted, then 404", async (t) => {
  const owner = await aCallerWithSession()
  const other = await aCallerWithSession()
  const schedule = (await createSchedule(owner, brief(owner.sessionId, { cron: '0 9 * * 1', timezone: 'Europe/Berlin' }))).body.schedule
  t.equal((await other.api.get(`/v1/schedules/${schedule.id}`)).status, 404)
  t.equal((await patchSchedule(other, schedule.id, { paused: true })).status, 404)
  t.equal((await other.api.request('DELETE', `/v1/schedules/${schedule.id}`)).status, 404)
  t.equal((await other.api.get<{ schedules: unknown[] }>('/v1/schedules')).body.schedules.length, 0)
  t.equal((await owner.api.get(`/v1/schedules/${schedule.id}`)).status, 200, 'the owner still has it')
  const listed = await owner.api.get<{ schedules: { id: string }[] }>(`/v1/schedules?sessionId=${owner.sessionId}`)
  t.same(
    listed.body.schedules.map((s) => s.id),
    [schedule.id],
  )
})
