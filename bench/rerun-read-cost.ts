/**
 * What the re-runs read adds to GET /v1/tasks/{taskId} (ADR 0038): the GET of an ended task
 * (served from memory but for its re-runs, read from the log) against the read of the re-runs
 * alone. Starts its own nats-server and FerretDB; `N` GETs (default 300), one at a time.
 *   npx tsx bench/rerun-read-cost.ts
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { loadConfig } from '../src/config.js'
import { startService } from '../src/service.js'
import { startMongo, startNats } from '../src/infra/local/servers.js'
import { TaskReruns } from '../src/domain/tasks/reruns.js'
import { createAccount } from '../src/commands/create-account/create-account.js'
import { createApiKey } from '../src/commands/create-api-key/create-api-key.js'
import { operator } from '../src/commands/execute.js'

const N = Number(process.env.N ?? 300)
const dir = await mkdtemp(join(tmpdir(), 'mats-rerun-read-'))
const nats = await startNats({ dataDir: join(dir, 'nats') })
const mongo = await startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' })
const config = loadConfig({ NATS_URL: nats.url, MONGODB_URL: mongo.url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMITS_ENABLED: 'false' })
const service = await startService(config, pino({ level: 'silent' }), new Set(['api', 'projector']))
try {
  const { infra } = service
  const account = await createAccount(infra, { name: 'bench', monthlyBudgetUsd: 100 }, operator())
  const { key } = await createApiKey(infra, { accountId: account.id, name: 'bench', expiresAt: null }, operator())
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const session = (await (await fetch(`${service.url}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()) as { session: { id: string } }
  const task = (await (await fetch(`${service.url}/v1/tasks`, { method: 'POST', headers, body: JSON.stringify({ sessionId: session.session.id, instruction: `Bench ${randomUUID()}` }) })).json()) as {
    task: { id: string }
  }
  await fetch(`${service.url}/v1/tasks/${task.task.id}/cancel`, { method: 'POST', headers })
  const time = async (what: string, run: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await run()
    const ms: number[] = []
    for (let i = 0; i < N; i++) {
      const start = performance.now()
      await run()
      ms.push(performance.now() - start)
    }
    ms.sort((a, b) => a - b)
    console.log(`${what}: median ${ms[Math.floor(N / 2)]?.toFixed(2)} ms, p99 ${ms[Math.floor(N * 0.99)]?.toFixed(2)} ms over ${N}`)
  }
  await time('GET /v1/tasks/{taskId} of an ended task', () => fetch(`${service.url}/v1/tasks/${task.task.id}`, { headers }).then((r) => r.text()))
  await time('  of which the re-runs read (none stored)', () => infra.events.load(TaskReruns, { accountId: account.id, aggregateId: task.task.id }))
} finally {
  await service.stop()
  await nats.stop()
  await mongo.stop()
  await rm(dir, { recursive: true, force: true })
}
