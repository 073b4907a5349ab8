import pino, { type Logger } from 'pino'
import type { Test } from 'tap'
import { loadConfig, type Config } from '../../src/config.js'
import { connectApp, type AppContext } from '../../src/app-context.js'
import type { PlatformConnectors } from '../../consumers/connectors/platform-connectors.js'
import { ROLES, startService, type Role, type RunningService } from '../../src/service.js'
import type { TestServers } from './servers.js'

export const testLog = () => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' })

/**
 * Limits are still enforced through the shared store in every test, but high enough
 * that only the rate-limit tests (which set the spec's figures) ever reach them.
 */
const GENEROUS_LIMITS = Object.fromEntries(['TASKS_CREATE', 'TASKS_READ', 'SESSIONS', 'META', 'OPENAPI', 'AUTH_FAILURES', 'WEBHOOKS'].map((group) => [`RATE_LIMIT_${group}_PER_MIN`, '1000000']))

export function testConfig(servers: TestServers, overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NATS_URL: servers.natsUrl,
    MONGODB_URL: servers.mongoUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...GENEROUS_LIMITS,
    ...overrides,
  })
}

export interface TestService extends RunningService {
  readonly url: string
}

/** The service in this process, listening on a random port; stopped when the test ends. */
export async function startTestService(
  t: Test,
  servers: TestServers,
  options: { env?: Record<string, string>; roles?: readonly Role[]; log?: Logger; connectors?: PlatformConnectors } = {},
): Promise<TestService> {
  const hooks = options.connectors ? { connectors: options.connectors } : {}
  const service = await startService(testConfig(servers, options.env), options.log ?? testLog(), new Set(options.roles ?? ROLES), hooks)
  t.teardown(() => service.stop())
  if (!service.url) throw new Error('the api role is not running')
  return { ...service, url: service.url, stop: () => service.stop() }
}

/** Connections without any role: for operator commands and direct reads in tests. */
export async function connectTestInfra(t: Test, servers: TestServers, env: Record<string, string> = {}): Promise<AppContext> {
  const infra = await connectApp(testConfig(servers, env), testLog())
  t.teardown(() => infra.close())
  return infra
}
