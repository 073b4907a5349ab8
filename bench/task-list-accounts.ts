import type { AppContext } from '../src/app-context.js'
import { createAccount } from '../src/commands/create-account/create-account.js'
import { createApiKey } from '../src/commands/create-api-key/create-api-key.js'
import { operator } from '../src/commands/execute.js'
import { seedTaskDocuments } from '../test/helpers/task-documents.js'
import { mixedTaskDrafts } from '../test/helpers/task-mix.js'
import { appendTasks, seedSession } from './seed.js'

/** An account of the task-list benches: its key (as a bearer header), its sessions and how many tasks it holds. */
export interface Tenant {
  readonly name: string
  readonly id: string
  readonly key: string
  readonly headers: Record<string, string>
  readonly sessions: readonly string[]
  readonly tasks: number
}

export async function tenant(infra: AppContext, name: string, tasks: number, sessions: number): Promise<Tenant> {
  const account = await createAccount(infra, { name, monthlyBudgetUsd: 1_000_000 }, operator())
  const { key } = await createApiKey(infra, { accountId: account.id, name, expiresAt: null }, operator())
  const ids = await Promise.all(Array.from({ length: sessions }, (_, i) => seedSession(infra, account.id, `${name} ${i}`)))
  return { name, id: account.id, key, headers: { authorization: `Bearer ${key}` }, sessions: ids, tasks }
}

/**
 * The big account's tasks folded by the projections' own evolve straight into the tasks and
 * task_counts read models (appending and projecting 100,000 takes many minutes on a loaded
 * 2-core machine; bench:projectors measures that), created one a second up to an hour ago.
 * Answers the span of their creation times.
 */
export async function seedReadModels(infra: AppContext, big: Tenant): Promise<{ from: Date; to: Date }> {
  const to = new Date(Date.now() - 3_600_000)
  const from = new Date(to.getTime() - big.tasks * 1000)
  await seedTaskDocuments(infra.readModels, big.id, big.tasks, (i) => mixedTaskDrafts(i, big.sessions), from, 1000)
  return { from, to }
}

/** The small account's tasks appended to the log, one atomic batch per task, for the service's projector. */
export const appendToLog = (infra: AppContext, small: Tenant) => appendTasks(infra, small.id, small.tasks, (i) => mixedTaskDrafts(i, small.sessions))

/** Until GET /v1/tasks/counts of `tenant` says all its tasks are there. */
export async function caughtUp(url: string, tenant: Tenant): Promise<void> {
  const deadline = Date.now() + 30 * 60_000
  for (;;) {
    const response = await fetch(`${url}/v1/tasks/counts`, { headers: tenant.headers })
    const body = (await response.json()) as { counts?: { total: number } }
    if (body.counts?.total === tenant.tasks) return
    if (Date.now() > deadline) throw new Error(`${tenant.name}: the projector did not reach ${tenant.tasks} tasks`)
    await new Promise((r) => setTimeout(r, 1000))
  }
}
