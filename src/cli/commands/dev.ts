import { resolve } from 'node:path'
import type { Logger } from 'pino'
import type { Config } from '../../config.js'
import { isListening, startMongo, startNats, type LocalServer } from '../../infra/local/servers.js'
import { ROLES, startService } from '../../service.js'
import { untilSignal } from './start.js'

export const DEV_USAGE = 'mats dev   (npm start: local NATS and MongoDB where none is configured or running, then every role)'

const LOOPBACK = '127.0.0.1'

/**
 * A laptop in one command: uses NATS_URL / MONGODB_URL when set, or whatever already
 * answers on the default ports, and otherwise starts local servers with data under
 * `.mats/`. Ctrl-C stops the service and then the servers it started.
 */
export async function dev(config: Config, log: Logger, env: NodeJS.ProcessEnv): Promise<void> {
  const dataDir = resolve(config.DEV_DATA_DIR)
  const started: LocalServer[] = []
  const stopServers = async () => { await Promise.all(started.map((s) => s.stop())) }
  try {
    const natsUrl = env.NATS_URL || (await localNats(config.DEV_NATS_PORT, dataDir, started, log))
    const mongoUrl = env.MONGODB_URL || (await localMongo(config.DEV_MONGODB_PORT, dataDir, started, log))
    const service = await startService({ ...config, NATS_URL: natsUrl, MONGODB_URL: mongoUrl }, log, new Set(ROLES))
    printWelcome(service.url ?? '')
    await untilSignal(service, log, config.SHUTDOWN_GRACE_MS, stopServers)
  } catch (err) {
    await stopServers()
    throw err
  }
}

async function localNats(port: number, dataDir: string, started: LocalServer[], log: Logger): Promise<string> {
  const url = `nats://${LOOPBACK}:${port}`
  if (await isListening(LOOPBACK, port)) return url
  const server = await startNats({ dataDir: `${dataDir}/nats`, port })
  started.push(server)
  log.info({ url, dataDir: `${dataDir}/nats` }, 'started a local nats-server with JetStream')
  return server.url
}

async function localMongo(port: number, dataDir: string, started: LocalServer[], log: Logger): Promise<string> {
  const url = `mongodb://${LOOPBACK}:${port}/mats`
  if (await isListening(LOOPBACK, port)) return url
  const server = await startMongo({ dataDir: `${dataDir}/mongo`, port, database: 'mats' })
  started.push(server)
  log.info({ url, dataDir: `${dataDir}/mongo` }, 'started a local MongoDB-wire server')
  return server.url
}

function printWelcome(url: string): void {
  process.stdout.write(`
mats is running at ${url}/v1   (OpenAPI: ${url}/v1/openapi.json)

Next, in another terminal, create an account and an API key:
  npx mats accounts create --name "Acme" --json
  npx mats keys create --account <id from above> --name laptop --json
then call the API with it:
  curl -H "Authorization: Bearer <key>" ${url}/v1/agents

Ctrl-C stops mats and the servers it started.
`)
}
