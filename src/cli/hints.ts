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

/** Connection strings may carry a password; messages must not. */
export function withoutPasswords(urls: string): string {
  return urls
    .split(',')
    .map((url) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@'))
    .join(',')
}

/** The API's port is taken: one line that says by what and how to choose another. */
export function addressInUse(err: unknown, host: string, port: number, freePort: number): Error | null {
  if (!(err instanceof Error) || !('code' in err) || err.code !== 'EADDRINUSE') return null
  return new Error(`port ${port} (PORT) is already in use on ${host}: another mats or another program listens there; stop it, or choose a free port, e.g. PORT=${freePort}`)
}
