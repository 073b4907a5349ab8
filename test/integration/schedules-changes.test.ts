import t from 'tap'
import { createSchedule, firedOf, patchSchedule, scheduleEvents } from '../helpers/schedules.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * A scheduler learns a schedule's changes from its lifecycle events as they are stored (ADR
 * 0053), not from a periodic read of every schedule: SCHEDULER_REFRESH_MS is set far beyond
 * the test here, so only the follower of changes can bring in what is created, changed or
 * resumed after the scheduler has started.
 */
const NO_PERIODIC_READ = { SCHEDULER_REFRESH_MS: '600000' }
/** A change is learnt in milliseconds on a quiet machine: this bound is for a loaded one. */
const PICKED_UP_MS = 30_000

const ticksOf = async (service: TestService, caller: Caller, id: string) =>
  firedOf(await scheduleEvents(service.infra, caller.account.id, id)).map((event) => Date.parse((event.data as { scheduledFor: string }).scheduledFor))

t.test('given a running scheduler that never reads the schedules again on its own', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector', 'scheduler'], env: NO_PERIODIC_READ })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const body = { sessionId, agentType: 'seo', instruction: 'Draft the daily social post', overlap: 'allow' }
  const firesAfter = (id: string, since: number) => async () => (await ticksOf(service, caller, id)).some((tick) => tick > since)

  await t.test('when a schedule is created, then its ticks fire', async (t) => {
    const schedule = (await createSchedule(caller, { ...body, every: '1s' })).body.schedule
    await until('a tick of the new schedule', firesAfter(schedule.id, 0), PICKED_UP_MS, 100)
    t.pass('fired')
  })

  await t.test('when an hourly schedule is changed to every second, then it fires at the new rate', async (t) => {
    const schedule = (await createSchedule(caller, { ...body, every: '1h' })).body.schedule
    const changedAt = Date.now()
    t.equal((await patchSchedule(caller, schedule.id, { every: '1s' })).status, 200)
    await until('a tick after the change', firesAfter(schedule.id, changedAt), PICKED_UP_MS, 100)
    t.pass('fired')
  })

  await t.test('when a schedule created paused is resumed, then it fires; when deleted, nothing after', async (t) => {
    const schedule = (await createSchedule(caller, { ...body, every: '1s', paused: true })).body.schedule
    const resumedAt = Date.now()
    t.equal((await patchSchedule(caller, schedule.id, { paused: false })).status, 200)
    await until('a tick after the resume', firesAfter(schedule.id, resumedAt), PICKED_UP_MS, 100)
    t.equal((await caller.api.request('DELETE', `/v1/schedules/${schedule.id}`)).status, 204)
    const events = await scheduleEvents(service.infra, caller.account.id, schedule.id)
    const deletedAt = events.findIndex((event) => event.type === 'ScheduleDeleted')
    t.ok(deletedAt > 0, 'deleted')
    t.same(firedOf(events.slice(deletedAt)), [], 'no tick stored after the delete')
  })
})
