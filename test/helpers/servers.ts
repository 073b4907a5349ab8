import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { startMongo, startNats, type LocalServer } from '../../src/infra/local/servers.js'

export interface TestServers {
  readonly natsUrl: string
  readonly mongoUrl: string
  readonly nats: LocalServer
  readonly mongo: LocalServer
  readonly dir: string
}

/**
 * A real nats-server (JetStream) and MongoDB-wire server on random loopback ports, per test file.
 * `natsConfig` is more nats-server configuration (TLS, authorization).
 */
export async function startServers(t: Test, options: { natsConfig?: string } = {}): Promise<TestServers> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-test-'))
  const [nats, mongo] = await Promise.all([
    startNats({ dataDir: join(dir, 'nats'), ...(options.natsConfig ? { config: options.natsConfig } : {}) }),
    startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' }),
  ])
  t.teardown(async () => {
    await Promise.all([nats.stop(), mongo.stop()])
    await rm(dir, { recursive: true, force: true })
  })
  return { natsUrl: nats.url, mongoUrl: mongo.url, nats, mongo, dir }
}

/** Another database on the same server: a clean slate for comparing read models. */
export function otherDatabase(servers: Pick<TestServers, 'mongoUrl'>, name: string): string {
  return servers.mongoUrl.replace(/\/[^/]*$/, `/${name}`)
}
