import type { JetStreamManager } from '@nats-io/jetstream'
import { LIVE_EVENTS_CONSUMER_PREFIX } from '../../src/queries/live-tap.js'

/** The API processes' shared consumers of live task events on MATS_TASKS (one per process while anything follows events live). */
export async function liveConsumers(jsm: JetStreamManager): Promise<string[]> {
  const names: string[] = []
  for await (const info of jsm.consumers.list('MATS_TASKS')) if (info.name.startsWith(LIVE_EVENTS_CONSUMER_PREFIX)) names.push(info.name)
  return names
}
