import type { Config } from '../config.js'

/** The servers cannot be reached: the message names the address tried and what to set. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError'
}

export function unreachableMessage(err: unknown, config: Pick<Config, 'NATS_URL' | 'MONGODB_URL'>): string {
  const reason = err instanceof Error ? err.message : String(err)
  // The MongoDB driver's errors are all Mongo*Error; anything else came from connecting to NATS.
  const mongo = err instanceof Error && err.name.startsWith('Mongo')
  const [server, variable, url, devPort] = mongo ? ['MongoDB', 'MONGODB_URL', config.MONGODB_URL, 'DEV_MONGODB_PORT'] : ['NATS', 'NATS_URL', config.NATS_URL, 'DEV_NATS_PORT']
  return `cannot reach ${server} at ${withoutPasswords(url)} (${reason}).
Set ${variable} to the server of the running mats: \`npm start\` prints it (it moves with ${devPort}).
NATS_URL and MONGODB_URL must both point at that mats's servers.`
}

/**
 * A service that cannot connect at start: one line naming the server, the address and the
 * variable; null when `err` is not a connection failure. nats.js fails with ConnectionError
 * or TimeoutError; the MongoDB driver, when no server answers in time, with
 * MongoServerSelectionError (MongoNetworkError when a connection breaks).
 */
export function cannotConnect(err: unknown, config: Pick<Config, 'NATS_URL' | 'MONGODB_URL'>): UnreachableError | null {
  if (!(err instanceof Error)) return null
  const server = NATS_CONNECT_ERRORS.has(err.name) ? 'NATS' : MONGODB_CONNECT_ERRORS.has(err.name) ? 'MongoDB' : null
  if (!server) return null
  const [variable, url] = server === 'NATS' ? ['NATS_URL', config.NATS_URL] : ['MONGODB_URL', config.MONGODB_URL]
  const reason = err.message.replaceAll(/\s+/g, ' ')
  // A request may time out once connected too (a busy server): not "cannot reach" then.
  if (err.name === 'TimeoutError') return new UnreachableError(`${server} at ${withoutPasswords(url)} (${variable}) did not answer in time: ${reason}`)
  return new UnreachableError(`cannot reach ${server} at ${withoutPasswords(url)} (${variable}): ${reason}`)
}

const NATS_CONNECT_ERRORS = new Set(['ConnectionError', 'TimeoutError'])
const MONGODB_CONNECT_ERRORS = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError'])

/** Connection strings may carry a password; messages must not. */
export function withoutPasswords(urls: string): string {
  return urls
    .split(',')
    .map((url) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@'))
    .join(',')
}

/** A port (PORT, or METRICS_PORT) is taken: one line that says by what and how to choose another. */
export function addressInUse(err: unknown, host: string, ports: { readonly PORT: number; readonly METRICS_PORT?: number | undefined }, freePort: number): Error | null {
  if (!(err instanceof Error) || !('code' in err) || err.code !== 'EADDRINUSE') return null
  const [variable, port] = 'port' in err && err.port === ports.METRICS_PORT && ports.METRICS_PORT !== ports.PORT ? ['METRICS_PORT', ports.METRICS_PORT] : ['PORT', ports.PORT]
  return new Error(`port ${port} (${variable}) is already in use on ${host}: another mats or another program listens there; stop it, or choose a free port, e.g. ${variable}=${freePort}`)
}
