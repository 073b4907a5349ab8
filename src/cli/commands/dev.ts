import { resolve } from 'node:path'
import { ConfigSchema, type Config } from '../../config.js'
import { freePort, isListening, startMongo, startNats, type LocalServer } from '../../infra/local/servers.js'
import { createLogger } from '../../infra/logger.js'
import { startTracing } from '../../infra/tracing/tracing.js'
import { ROLES } from '../../service.js'
import { devWebhooksKey } from '../dev-webhooks-key.js'
import { withoutPasswords } from '../hints.js'
import { parse } from '../io.js'
import { startOrExplain, untilSignal } from './start.js'

const LOOPBACK = '127.0.0.1'

/** How `mats dev` got one of its servers; printed, so that nobody uses someone else's unawares. */
interface ServerInUse {
  readonly name: string
  readonly url: string
  readonly how: string
}

/** Something listens on a dev port and mats was not told it may use it. */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError'
}

/**
 * A laptop in one command: uses NATS_URL / MONGODB_URL when set, and otherwise starts local
 * servers with data under DEV_DATA_DIR. Servers it did not start, found on the dev ports,
 * are used only when told to (--attach, DEV_ATTACH=true): on a shared host they may be
 * someone else's. Ctrl-C stops the service and then the servers it started.
 */
export async function dev(config: Config, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values } = parse(args, { attach: { type: 'boolean', default: false } })
  const attach = values.attach || config.DEV_ATTACH
  const log = createLogger(config.LOG_LEVEL, { role: 'all' })
  const dataDir = resolve(config.DEV_DATA_DIR)
  const started: LocalServer[] = []
  const stopServers = async () => {
    await Promise.all(started.map((s) => s.stop()))
  }
  // Out of Ctrl-C's reach (their own process group): should mats exit without stopping them
  // (a second Ctrl-C, a crash), they are told to stop here.
  process.once('exit', () => {
    for (const { process: server } of started) if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM')
  })
  try {
    const nats = env.NATS_URL ? configured('NATS', env.NATS_URL, 'NATS_URL') : await local(natsSpec(config.DEV_NATS_PORT, dataDir), attach, started)
    const mongo = env.MONGODB_URL ? configured('MongoDB', env.MONGODB_URL, 'MONGODB_URL') : await local(mongoSpec(config.DEV_MONGODB_PORT, dataDir), attach, started)
    const webhooks = await webhooksOnALaptop(config, env, dataDir)
    const tracing = await startTracing(env, log)
    const service = await startOrExplain({ ...config, ...webhooks.config, NATS_URL: nats.url, MONGODB_URL: mongo.url }, log, new Set(ROLES))
    printWelcome(service.url ?? '', [nats, mongo], webhooks.said)
    await untilSignal(service, log, config.SHUTDOWN_GRACE_MS, async () => {
      await tracing?.shutdown()
      await stopServers()
    })
  } catch (err) {
    await stopServers()
    throw err
  }
}

interface LocalSpec {
  readonly name: string
  readonly port: number
  readonly portVariable: string
  readonly url: string
  readonly dataDir: string
  start(): Promise<LocalServer>
}

const natsSpec = (port: number, dataDir: string): LocalSpec => ({
  name: 'NATS',
  port,
  portVariable: 'DEV_NATS_PORT',
  url: `nats://${LOOPBACK}:${port}`,
  dataDir: `${dataDir}/nats`,
  start: () => startNats({ dataDir: `${dataDir}/nats`, port, ownProcessGroup: true }),
})

const mongoSpec = (port: number, dataDir: string): LocalSpec => ({
  name: 'MongoDB',
  port,
  portVariable: 'DEV_MONGODB_PORT',
  url: `mongodb://${LOOPBACK}:${port}/mats`,
  dataDir: `${dataDir}/mongo`,
  start: () => startMongo({ dataDir: `${dataDir}/mongo`, port, database: 'mats', ownProcessGroup: true }),
})

/**
 * Webhooks on, as a newcomer expects: with a key generated once into DEV_DATA_DIR unless
 * WEBHOOKS_SECRET_KEY is set, and (unless WEBHOOKS_ALLOW_PRIVATE_URLS says otherwise) to
 * receivers on this machine or its network, where a laptop's receivers are.
 */
async function webhooksOnALaptop(config: Config, env: NodeJS.ProcessEnv, dataDir: string): Promise<{ config: Partial<Config>; said: string }> {
  const allowPrivate = env.WEBHOOKS_ALLOW_PRIVATE_URLS === undefined || env.WEBHOOKS_ALLOW_PRIVATE_URLS === '' ? { WEBHOOKS_ALLOW_PRIVATE_URLS: true } : {}
  const receivers = (allowPrivate.WEBHOOKS_ALLOW_PRIVATE_URLS ?? config.WEBHOOKS_ALLOW_PRIVATE_URLS) ? 'receivers on localhost allowed' : 'public receivers only'
  if (config.WEBHOOKS_SECRET_KEY) return { config: allowPrivate, said: `on, key from WEBHOOKS_SECRET_KEY, ${receivers}` }
  const { key, file, generated } = await devWebhooksKey(dataDir)
  const where = `${generated ? 'generated now into' : 'from'} ${file}`
  return { config: { ...allowPrivate, WEBHOOKS_SECRET_KEY: key }, said: `on, key ${where}, ${receivers}` }
}

function configured(name: string, url: string, variable: string): ServerInUse {
  return { name, url, how: `from ${variable}` }
}

async function local(spec: LocalSpec, attach: boolean, started: LocalServer[]): Promise<ServerInUse> {
  if (await isListening(LOOPBACK, spec.port)) {
    if (!attach) throw new PortTakenError(await portTakenMessage(spec))
    return { name: spec.name, url: spec.url, how: 'already running, not started by mats (attached: it keeps running after Ctrl-C)' }
  }
  const server = await spec.start()
  started.push(server)
  return { name: spec.name, url: server.url, how: `started by mats, data in ${spec.dataDir}` }
}

async function portTakenMessage(spec: LocalSpec): Promise<string> {
  const [api, nats, mongo] = [await freePort(), await freePort(), await freePort()]
  return `something already listens on ${LOOPBACK}:${spec.port} (${spec.portVariable}) and mats did not start it: on a shared host it may be someone else's ${spec.name}.
  To use it anyway: DEV_ATTACH=true npm start   (or: npm start -- --attach)
  To run servers of your own on free ports: PORT=${api} DEV_NATS_PORT=${nats} DEV_MONGODB_PORT=${mongo} npm start`
}

function printWelcome(url: string, [nats, mongo]: readonly [ServerInUse, ServerInUse], webhooks: string): void {
  const line = (s: ServerInUse) => `  ${`${s.name}:`.padEnd(8)} ${withoutPasswords(s.url)}   ${s.how}`
  // The CLI's defaults are the default ports; elsewhere it has to be told.
  const defaults = [Reflect.get(ConfigSchema.properties.NATS_URL, 'default'), Reflect.get(ConfigSchema.properties.MONGODB_URL, 'default')]
  const exportUrls = nats.url === defaults[0] && mongo.url === defaults[1] ? '' : `  export NATS_URL=${nats.url} MONGODB_URL=${mongo.url}\n`
  process.stdout.write(`
mats is running at ${url}/v1   (OpenAPI: ${url}/v1/openapi.json)
${line(nats)}
${line(mongo)}
  Webhooks: ${webhooks}

Next, in another terminal, create an account and an API key:
${exportUrls}  npx mats accounts create --name "Acme" --json
  npx mats keys create --account <id from above> --name laptop --json
then call the API with it:
  curl -H "Authorization: Bearer <key>" ${url}/v1/agents

Ctrl-C stops mats and the servers it started.
`)
}
