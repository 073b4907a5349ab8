import t from 'tap'
import { Scheduler } from '../../consumers/schedules/scheduler.js'
import { activeSchedules } from '../../projections/index.js'
import type { AppContext } from '../../src/app-context.js'
import { createSchedule } from '../helpers/schedules.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/** A read model catches up in milliseconds on a quiet machine: this bound is for a loaded one. */
const PROJECTED_MS = 30_000

/**
 * A scheduler that takes partitions brings its accounts' spend into its spend view before
 * their first tick (ADR 0056): the view loads a document the first time it is asked for it, and
 * a scheduler that had just taken a partition paid that on the first tick of every account.
 */
t.test("given an account with an active schedule, when a scheduler starts and takes every partition, then it has read the account's spend before any tick", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  // Due on 1 January only: no tick reads the spend meanwhile.
  const body = { sessionId, agentType: 'seo', instruction: 'Plan the new year posts', cron: '0 0 1 1 *', overlap: 'allow' }
  const scheduleId = (await createSchedule(caller, body)).body.schedule.id
  const infra = await connectTestInfra(t, servers)
  await until(
    'the schedule in the read model',
    async () => {
      for await (const { _id } of activeSchedules(infra.readModels, 10)) if (_id === scheduleId) return true
      return false
    },
    PROJECTED_MS,
    100,
  )
  const spendRead: string[] = []
  const budgets = new Proxy(infra.budgets, {
    get(target, property, receiver) {
      if (property !== 'monthToDate') return Reflect.get(target, property, receiver)
      return (accountId: string, now: Date) => {
        spendRead.push(accountId)
        return target.monthToDate(accountId, now)
      }
    },
  })
  const scheduler = new Scheduler({ ...infra, budgets } satisfies AppContext, { refreshMs: 600_000, loopMs: 100, concurrency: 4 })
  t.teardown(() => scheduler.stop())

  await scheduler.start()

  t.equal(scheduler.size, 1, 'it follows the schedule')
  t.same(spendRead, [caller.account.id], "and has read its account's spend once")

  await t.test("when another account's first schedule is created, then the scheduler reads that account's spend before its first tick", async (t) => {
    const other = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
    const otherSession = (await other.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
    await createSchedule(other, { ...body, sessionId: otherSession })

    await until('the scheduler following both', async () => scheduler.size === 2, PROJECTED_MS, 100)
    await until("the other account's spend read", async () => spendRead.includes(other.account.id), PROJECTED_MS, 100)
    t.same(spendRead, [caller.account.id, other.account.id], 'each account read once')
  })
})
