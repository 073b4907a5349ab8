import { type CommandStartedEvent, MongoClient } from 'mongodb'
import type { Test } from 'tap'

/** A client of the test's MongoDB that reports every command it sends; closed at the end of `t`. */
export function monitoredClient(t: Test, mongoUrl: string): MongoClient {
  const client = new MongoClient(mongoUrl, { monitorCommands: true })
  t.teardown(() => client.close())
  return client
}

/** What `pick` makes of each command `client` sends from now to the end of `t` (undefined: left out). */
export function commandsSent<T>(t: Test, client: MongoClient, pick: (event: CommandStartedEvent) => T | undefined): T[] {
  const seen: T[] = []
  const listener = (event: CommandStartedEvent) => {
    const picked = pick(event)
    if (picked !== undefined) seen.push(picked)
  }
  client.on('commandStarted', listener)
  t.teardown(() => client.off('commandStarted', listener))
  return seen
}
