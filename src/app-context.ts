import type { Logger } from 'pino'
import { ALL_PROJECTIONS, accountSpendProjection, activeWebhooks, LiveView, ProjectionProgress, projectInline, ReadModels, spendId, type AccountSpendDoc } from '../projections/index.js'
import type { CommandContext } from './commands/context.js'
import { Budgets } from './commands/create-task/budget.js'
import type { Config } from './config.js'
import { connectInfra, type Infra } from './infra/context.js'
import { DispatchDoorbell } from './infra/nats/dispatch-doorbell.js'
import { LIVE_INBOX_LIMIT, LiveEventHub } from './queries/live-event-hub.js'
import { EndedTasks } from './queries/read-task.js'
import { KnownSessions } from './queries/require-session.js'

/**
 * The composition root's context: the connections (`Infra`) and what this process builds on
 * them: the read models, the projectors' progress, the views and caches the commands and
 * queries are handed. Only the surfaces (src/api, src/http, src/mcp, src/cli, consumers/)
 * and src/service.ts take it whole; commands and queries name the parts they need.
 */
export interface AppContext extends CommandContext {
  readonly readModels: ReadModels
  readonly progress: ProjectionProgress
  /** Month-to-date spend as of the log, kept by this process for the accounts it serves. */
  readonly budgets: Budgets
  readonly knownSessions: KnownSessions
  /** Tells the workers that an account has a new task, at most once per account and half second (ADR 0064). */
  readonly doorbell: DispatchDoorbell
  readonly endedTasks: EndedTasks
  /** How many webhooks an account has registered and not deleted (the limit on registering more). */
  readonly countActiveWebhooks: (accountId: string) => Promise<number>
  /** The process's one shared consumer of live task events, fanned out to feeds and waits (ADR 0040); it runs only while someone follows. */
  readonly liveEvents: LiveEventHub
}

/** Connects (src/infra/context.ts), then builds the read side and the caches on the connections. */
export async function connectApp(config: Config, log: Logger): Promise<AppContext> {
  const infra = await connectInfra(config, log)
  try {
    return await composeApp(infra)
  } catch (err) {
    await infra.close().catch(() => undefined)
    throw err
  }
}

async function composeApp(infra: Infra): Promise<AppContext> {
  const { js, jsm, link, events, log } = infra
  const readModels = new ReadModels(infra.db, ALL_PROJECTIONS)
  await readModels.init()
  const progress = new ProjectionProgress(infra.nc, readModels)
  progress.start()
  // The budget view: account_spend kept in memory, brought to the task stream's head on each check (ADR 0017).
  const spend = new LiveView<AccountSpendDoc>({ js, jsm, link, readModels, log }, accountSpendProjection, {
    eventsAfter: (id, afterSeq) => events.readAccountAfter('task', accountOf(id), afterSeq),
  })
  const budgets = new Budgets({ view: spend, spendId, events, log })
  const liveEvents = new LiveEventHub(infra, { inboxLimit: LIVE_INBOX_LIMIT, idleMs: infra.config.LIVE_EVENTS_IDLE_MS })
  return {
    ...infra,
    readModels,
    progress,
    budgets,
    knownSessions: new KnownSessions(),
    doorbell: new DispatchDoorbell(infra.nc),
    endedTasks: new EndedTasks(),
    // The inline projections registered with the write side: each append brings its aggregate's own documents up to date.
    projectInline: (stream, aggregateId, history, follows) => projectInline(readModels, log, stream, aggregateId, history, follows),
    countActiveWebhooks: async (accountId) => (await activeWebhooks(readModels, accountId)).length,
    liveEvents,
    async close() {
      await liveEvents.close()
      budgets.stop()
      progress.stop()
      readModels.close()
      await infra.close()
    },
  }
}

function accountOf(spendDocId: string): string {
  return spendDocId.slice(0, spendDocId.lastIndexOf(':'))
}
