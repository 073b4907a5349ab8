/**
 * The scheduler processes of the bench (ADR 0047: each holds leases on its share of the
 * partitions), and what the bench reads about them: which partitions each holds (the
 * `mats_scheduler_leases` bucket), the NATS messages of each (nats-server's `/connz`, matched
 * to the process by its socket's local port).
 */
import { readFile, readdir, readlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { jetstream } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { PARTITIONS } from '../../projections/index.js'
import { SCHEDULER_LEASES } from '../../consumers/schedules/owned-partitions.js'
import { startMatsProcess, type MatsProcess } from '../capacity/service-process.js'

export class SchedulerPool {
  readonly live: MatsProcess[] = []

  constructor(private readonly env: Record<string, string>) {}

  async grow(to: number): Promise<void> {
    while (this.live.length < to) this.live.push(await startMatsProcess({ roles: ['scheduler'], env: this.env }))
  }

  /** SIGKILL, as a node dies: its leases are not given back and expire after SCHEDULER_LEASE_MS. */
  kill(scheduler: MatsProcess): void {
    process.kill(scheduler.pid, 'SIGKILL')
    this.live.splice(this.live.indexOf(scheduler), 1)
  }

  /** CPU (µs) of the live schedulers together. */
  async cpuMicros(): Promise<number> {
    const stats = await Promise.all(this.live.map((scheduler) => scheduler.stats()))
    return stats.reduce((sum, s) => sum + s.cpuMicros, 0)
  }

  async stop(): Promise<void> {
    await Promise.all(this.live.map((scheduler) => scheduler.stop()))
  }
}

/** Which process (pid) holds each partition's lease, as the bucket says now. */
export async function leaseHolders(natsUrl: string, database: string): Promise<Map<number, number>> {
  const nc = await connect({ servers: natsUrl })
  try {
    const kv = await new Kvm(jetstream(nc)).open(SCHEDULER_LEASES)
    const holders = new Map<number, number>()
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const entry = await kv.get(`${database}.schedules.${partition}`)
      // The member id is `host:pid:random` (owned-partitions.ts).
      if (entry?.operation === 'PUT') holders.set(partition, Number(entry.string().split(':')[1]))
    }
    return holders
  } finally {
    await nc.close()
  }
}

/** Waits until the live schedulers hold every partition between them, each its fair share. */
export async function untilBalanced(natsUrl: string, database: string, pool: SchedulerPool): Promise<Map<number, number>> {
  const pids = new Set(pool.live.map((scheduler) => scheduler.pid))
  const least = Math.floor(PARTITIONS / pids.size)
  for (;;) {
    const holders = await leaseHolders(natsUrl, database)
    const counts = [...pids].map((pid) => [...holders.values()].filter((holder) => holder === pid).length)
    if ([...holders.values()].every((pid) => pids.has(pid)) && holders.size === PARTITIONS && counts.every((n) => n >= least)) return holders
    await sleep(500)
  }
}

/** Messages in + out of the NATS connections of `pids` (nats-server's `/connz`), by the local ports of their TCP sockets. */
export async function natsMessagesOf(monitorUrl: string, pids: readonly number[]): Promise<number> {
  const ports = new Set((await Promise.all(pids.map(localPortsOf))).flat())
  const res = await fetch(`${monitorUrl}/connz?limit=10000`)
  const connz = (await res.json()) as { connections: { port: number; in_msgs: number; out_msgs: number }[] }
  return connz.connections.filter((c) => ports.has(c.port)).reduce((sum, c) => sum + c.in_msgs + c.out_msgs, 0)
}

/** The local ports of a process's TCP sockets (Linux: its fds' socket inodes, looked up in /proc/net/tcp). */
async function localPortsOf(pid: number): Promise<number[]> {
  const inodes = new Set<string>()
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/u.exec(link)?.[1]
    if (inode) inodes.add(inode)
  }
  const ports: number[] = []
  for (const table of ['tcp', 'tcp6']) {
    const lines = (await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')).split('\n').slice(1)
    for (const line of lines) {
      const fields = line.trim().split(/\s+/u)
      const local = fields[1]
      if (local && fields[9] && inodes.has(fields[9])) ports.push(Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16))
    }
  }
  return ports
}
