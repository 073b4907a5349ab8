import { createAccount } from '../src/commands/create-account/create-account.js'
import { createApiKey } from '../src/commands/create-api-key/create-api-key.js'
import { operator } from '../src/commands/execute.js'
import type { RunningService } from '../src/service.js'

/** An account with a key and a session, as a client of the REST API holds them. */
export interface BenchCaller {
  readonly service: RunningService & { url: string }
  readonly url: string
  readonly accountId: string
  readonly headers: Record<string, string>
  readonly sessionId: string
  /** One of the account's tasks (after pickTask), for GET /v1/tasks/{id}. */
  taskId: string
  pickTask(): Promise<void>
}

export async function aBenchCaller(service: RunningService & { url: string }): Promise<BenchCaller> {
  const account = await createAccount(service.infra, { name: 'bench', monthlyBudgetUsd: 1_000_000 }, operator())
  const { key } = await createApiKey(service.infra, { accountId: account.id, name: 'bench' }, operator())
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const res = await fetch(`${service.url}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })
  const { session } = (await res.json()) as { session: { id: string } }
  const caller: BenchCaller = {
    service,
    url: service.url,
    accountId: account.id,
    headers,
    sessionId: session.id,
    taskId: '',
    async pickTask() {
      const list = await fetch(`${service.url}/v1/tasks?limit=1`, { headers })
      const { tasks } = (await list.json()) as { tasks: { id: string }[] }
      if (!tasks[0]) throw new Error('the account has no task to read')
      caller.taskId = tasks[0].id
    },
  }
  return caller
}
