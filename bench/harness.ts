import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import pino from 'pino'
import { loadConfig } from '../src/config.js'
import { startMongo, startNats, type LocalServer } from '../src/infra/local/servers.js'
import { startService, type Role, type RunningService, type ServiceHooks } from '../src/service.js'

export interface BenchServers {
  readonly natsUrl: string
  readonly mongoUrl: string
  stop(): Promise<void>
}

/** Real servers on random loopback ports with temporary data, as the tests use them. */
export async function benchServers(options: { syncAlways?: boolean } = {}): Promise<BenchServers> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-bench-'))
  const servers: LocalServer[] = await Promise.all([
    startNats({ dataDir: join(dir, 'nats'), ...(options.syncAlways ? { syncAlways: true } : {}) }),
    startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' }),
  ])
  return {
    natsUrl: servers[0]!.url,
    mongoUrl: servers[1]!.url,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()))
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export async function benchService(
  natsUrl: string,
  mongoUrl: string,
  env: Record<string, string>,
  roles: Role[] = ['api', 'projector'],
  hooks: ServiceHooks = {},
): Promise<RunningService & { url: string }> {
  const config = loadConfig({ NATS_URL: natsUrl, MONGODB_URL: mongoUrl, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', ...env })
  const service = await startService(config, pino({ level: process.env.LOG_LEVEL ?? 'silent' }), new Set(roles), hooks)
  return { ...service, url: service.url!, stop: () => service.stop() }
}

/** Requests per second of GETs to `url` over `seconds`, with `connections` in parallel. */
export async function requestsPerSecond(url: string, headers: Record<string, string>, seconds: number, connections = 10): Promise<number> {
  const result = await autocannon({ url, headers, duration: seconds, connections })
  const non2xx = result.non2xx + result.errors + result.timeouts
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} requests were not 2xx; the benchmark would measure errors`)
  return result.requests.average
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
