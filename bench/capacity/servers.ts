/**
 * The servers a capacity target runs against: nats-server with its monitoring port (so the
 * bench reads the server's own message counters) and the embedded MongoDB-wire store, on
 * random loopback ports with temporary data. Stopped, with their data, by `stop`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startMongo, startNats, type LocalServer } from '../../src/infra/local/servers.js'

export interface CapacityServers {
  readonly natsUrl: string
  readonly mongoUrl: string
  /** nats-server's monitoring endpoint (`/varz`, `/connz`). */
  readonly monitorUrl: string
  stop(): Promise<void>
}

/** `trace` receives nats-server's protocol trace (`-V`): every message in and out, for counting them by subject. */
export async function capacityServers(options: { trace?: (output: string) => void } = {}): Promise<CapacityServers> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-capacity-'))
  const monitorPort = await freePort()
  const natsDir = join(dir, 'nats')
  const servers: LocalServer[] = await Promise.all([
    startNats({
      dataDir: natsDir,
      args: ['-js', '-sd', natsDir, '-m', String(monitorPort), ...(options.trace ? ['-V'] : [])],
      ...(options.trace ? { onOutput: options.trace } : {}),
    }),
    startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' }),
  ])
  return {
    natsUrl: servers[0]!.url,
    mongoUrl: servers[1]!.url,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()))
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Messages nats-server received from and sent to its clients since it started (its `/varz`). */
export interface NatsCounters {
  readonly inMsgs: number
  readonly outMsgs: number
}

export async function natsCounters(monitorUrl: string): Promise<NatsCounters> {
  const res = await fetch(`${monitorUrl}/varz`)
  const varz = (await res.json()) as { in_msgs: number; out_msgs: number }
  return { inMsgs: varz.in_msgs, outMsgs: varz.out_msgs }
}

/** Everything started, stopped in reverse order however the run ends (servers and services are child processes). */
export class Stoppers {
  private readonly stops: (() => Promise<void>)[] = []

  add<T extends { stop(): Promise<void> }>(thing: T): T {
    this.stops.push(() => thing.stop())
    return thing
  }

  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(() => undefined)
  }
}
