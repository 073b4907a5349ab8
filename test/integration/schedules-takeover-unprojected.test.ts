import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ownedSchedule } from '../../projections/index.js'
import { operator } from '../../src/commands/execute.js'
import { createSchedule, type ManageSchedulesContext } from '../../src/commands/schedules/manage.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { exited, startMats } from '../helpers/processes.js'
import { firedOf, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * A scheduler taking a partition reads the read model whole, and follows the schedules'
 * lifecycle events from the schedules projection's checkpoint on (ADR 0053): a schedule the
 * read model has not applied yet is still fired. Here no projector runs and the schedules are
 * stored without their inline projection, so the read model never has them at all.
 */
t.test('given schedules in the log that the read model lacks, when the scheduler firing them is killed, then the one taking over fires every one of them', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const unprojected: ManageSchedulesContext = { ...service.infra, projectInline: () => Promise.resolve(), countLiveSchedules: () => Promise.resolve(0) }
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, SCHEDULER_REFRESH_MS: '600000', SCHEDULER_LEASE_MS: '3000' }
  const first = await startMats(t, ['--role', 'scheduler'], env)
  const schedules: { accountId: string; aggregateId: string }[] = []
  // Several accounts: their schedules are in several partitions.
  for (let i = 0; i < 4; i++) {
    const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
    const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    const aggregateId = randomUUID()
    const input = { sessionId, agentType: 'seo' as const, instruction: `Draft post ${i}`, every: '1s', overlap: 'allow' as const }
    await createSchedule(unprojected, caller.account.id, aggregateId, input, operator())
    schedules.push({ accountId: caller.account.id, aggregateId })
  }
  const firedSince = (since: number) => async () => {
    for (const { accountId, aggregateId } of schedules) {
      const ticks = firedOf(await scheduleEvents(service.infra, accountId, aggregateId)).map((event) => Date.parse((event.data as { scheduledFor: string }).scheduledFor))
      if (!ticks.some((tick) => tick > since)) return false
    }
    return true
  }
  await until('every schedule fired by the first scheduler', firedSince(0), 60_000, 200)
  for (const { accountId, aggregateId } of schedules) t.equal(await ownedSchedule(service.infra.readModels, accountId, aggregateId), null, 'not in the read model')

  // When
  const second = await startMats(t, ['--role', 'scheduler'], env)
  first.kill('SIGKILL')
  await exited(first)
  const killedAt = Date.now()

  // Then
  await until('every schedule fired by the second scheduler', firedSince(killedAt), 60_000, 200)
  t.pass('each fired after the takeover')
  second.kill('SIGTERM')
  await exited(second)
})
