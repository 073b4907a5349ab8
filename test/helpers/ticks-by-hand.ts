import type { Test } from 'tap'
import { operator } from '../../src/commands/execute.js'
import { fireTick, type FireContext, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { TickBatch, type TickAppends } from '../../src/commands/schedules/tick-batch.js'
import { Schedule } from '../../src/domain/schedules/schedule.js'
import type { EventStore } from '../../src/infra/nats/event-store.js'
import { aCaller, aSessionBody } from './mothers.js'
import { createSchedule } from './schedules.js'
import { startServers } from './servers.js'
import { startTestService } from './service.js'

export type PairAppends = Pick<EventStore, 'appendPair' | 'appendPairs'>

/** The event store, counting how pairs reach it: together in one batch (how many), or each alone. */
export function counting(events: PairAppends): PairAppends & { readonly calls: { pairs: number[]; alone: number } } {
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

/** `count` schedules of one account, not due (the test fires their tick by hand), and the instant of that tick. */
export async function schedulesOfOneAccount(t: Test, count: number) {
  const servers = await startServers(t)
  // These tests fire ticks by hand, so nothing tries a tick again that a starved machine made 503
  // (the checks past their share of the 2 s answer): NATS is given longer, as an operator may.
  const service = await startTestService(t, servers, { roles: ['api'], env: { NATS_TIMEOUT_MS: '3000' } })
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 1000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const body = { sessionId, agentType: 'seo', instruction: 'Audit the blog titles', cron: '0 0 1 1 *', overlap: 'allow', catchupWindow: '1h' }
  const ids: string[] = []
  for (let i = 0; i < count; i++) ids.push((await createSchedule(caller, { ...body, instruction: `${body.instruction}, part ${i + 1}` })).body.schedule.id)
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

/** Fires each schedule's tick as one member of a batch of them all; resolves to each as known after. */
export function fireTogether(context: FireContext, appends: TickAppends, known: readonly KnownSchedule[], tick: { scheduledFor: Date }): Promise<KnownSchedule[]> {
  const batch = new TickBatch(appends, known.length)
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
