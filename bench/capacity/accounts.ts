/** Accounts with a key and a session, as clients of the REST API hold them, made through the commands (no rate limits in the way). */
import pino from 'pino'
import { connectApp } from '../../src/app-context.js'
import { createAccount } from '../../src/commands/create-account/create-account.js'
import { createApiKey } from '../../src/commands/create-api-key/create-api-key.js'
import { operator } from '../../src/commands/execute.js'
import { loadConfig } from '../../src/config.js'

export interface Client {
  readonly accountId: string
  readonly headers: Record<string, string>
  readonly sessionId: string
}

export async function clients(natsUrl: string, mongoUrl: string, apiUrl: string, count: number): Promise<Client[]> {
  const infra = await connectApp(loadConfig({ NATS_URL: natsUrl, MONGODB_URL: mongoUrl }), pino({ level: 'silent' }))
  try {
    const made: Client[] = []
    for (let i = 0; i < count; i++) {
      const account = await createAccount(infra, { name: `capacity ${i}`, monthlyBudgetUsd: 1_000_000 }, operator())
      const { key } = await createApiKey(infra, { accountId: account.id, name: 'capacity' }, operator())
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
      const res = await fetch(`${apiUrl}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ name: 'capacity' }) })
      const body = (await res.json()) as { session?: { id: string } }
      if (!body.session) throw new Error(`POST /v1/sessions: ${res.status} ${JSON.stringify(body)}`)
      made.push({ accountId: account.id, headers, sessionId: body.session.id })
    }
    return made
  } finally {
    await infra.close()
  }
}

/** One account's client: the rigs that post as a single account. */
export async function oneClient(servers: { readonly natsUrl: string; readonly mongoUrl: string }, apiUrl: string): Promise<Client> {
  const [client] = await clients(servers.natsUrl, servers.mongoUrl, apiUrl, 1)
  if (!client) throw new Error('no client')
  return client
}

/** POST /v1/tasks; the created task's id. */
export async function postTask(apiUrl: string, client: Client, instruction: string, extra: Record<string, unknown> = {}): Promise<{ id: string; status: string }> {
  const res = await fetch(`${apiUrl}/v1/tasks`, { method: 'POST', headers: client.headers, body: JSON.stringify({ sessionId: client.sessionId, instruction, ...extra }) })
  const body = (await res.json()) as { task?: { id: string; status: string } }
  if (res.status !== 201 || !body.task) throw new Error(`POST /v1/tasks: ${res.status} ${JSON.stringify(body)}`)
  return body.task
}
