import { StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { KV } from '@nats-io/kv'
import { openBucket } from '../../src/infra/nats/buckets.js'
import { ALL_PARTITIONS, PARTITIONS } from './partitions.js'
import { isWrongLastSequence } from '../../src/infra/nats/conflicts.js'

const BUCKET = 'mats_projector_leases'

/** Leases of one process, by group name: partition → the KV revision it last wrote. */
type Held = Map<string, Map<number, number>>

/**
 * One active writer per partition of each group (the projections of a stream), across projector processes.
 * A lease is the KV entry `<stream>.<partition>` holding its writer's id, created only if absent
 * and renewed with compare-and-set; the bucket's TTL removes the entries of a writer that
 * stopped renewing (it died), and another process then takes them over. Members announce
 * themselves the same way (`<database>.members.<id>`), so that each takes its fair share and an old
 * member hands partitions over to a new one. Two writers for a moment are harmless (the
 * `_seq` guards, ADR 0003): leases are for sharing the work, not for correctness.
 */
export class PartitionLeases {
  private readonly held: Held = new Map()

  private readonly scope: string
  private readonly memberKey: string

  /** `database`: leases are per set of read models; projectors of another database do not share them. */
  private constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    database: string,
    readonly memberId: string,
  ) {
    this.scope = keyToken(database)
    this.memberKey = `${this.scope}.members.${keyToken(memberId)}`
  }

  /** `bucket`: another role sharing its work the same way (the scheduler, ADR 0047) keeps its leases apart, with its own TTL. */
  static async open(js: JetStreamClient, database: string, memberId: string, options: { replicas: number; ttlMs: number; bucket?: string }): Promise<PartitionLeases> {
    const bucket = options.bucket ?? BUCKET
    const kv = await openBucket(js, bucket, { history: 1, replicas: options.replicas, ttl: options.ttlMs, storage: StorageType.Memory })
    // Without the API check (a request): the bucket just opened says JetStream answers.
    return new PartitionLeases(kv, await js.jetstreamManager(false), bucket, database, memberId)
  }

  /**
   * Renews what this process holds, gives up what it holds beyond its fair share, takes
   * free partitions up to it, and returns the partitions it holds now, by group (a stream).
   */
  async tick(groups: readonly string[]): Promise<Map<string, number[]>> {
    await this.kv.put(this.memberKey, String(Date.now()))
    const members = await this.memberCount()
    const fairShare = Math.ceil(PARTITIONS / members)
    const owned = new Map<string, number[]>()
    for (const group of groups) {
      const held = this.held.get(group) ?? new Map<number, number>()
      this.held.set(group, held)
      await this.renew(group, held)
      for (const partition of [...held.keys()].slice(fairShare)) await this.release(group, held, partition)
      for (const partition of ALL_PARTITIONS) {
        if (held.size >= fairShare) break
        if (!held.has(partition)) await this.take(group, held, partition)
      }
      owned.set(
        group,
        [...held.keys()].sort((a, b) => a - b),
      )
    }
    return owned
  }

  /** Gives every lease back (graceful shutdown): the others take over at once, not after the TTL. */
  async releaseAll(): Promise<void> {
    for (const [group, held] of this.held) for (const partition of [...held.keys()]) await this.release(group, held, partition)
    await this.kv.delete(this.memberKey).catch(() => undefined)
  }

  /**
   * The members whose entry is live. Listed from the stream's subjects, not with `kv.keys()`,
   * which creates a consumer each time (the server keeps each for minutes: a tick a second
   * left hundreds, and nats-server spent a core on them).
   */
  private async memberCount(): Promise<number> {
    const root = `$KV.${this.bucket}.`
    const info = await this.jsm.streams.info(`KV_${this.bucket}`, { subjects_filter: `${root}${this.scope}.members.*` })
    const entries = await Promise.all(Object.keys(info.state.subjects ?? {}).map((subject) => this.kv.get(subject.slice(root.length))))
    return Math.max(1, entries.filter((entry) => entry?.operation === 'PUT').length)
  }

  private leaseKey(group: string, partition: number): string {
    return `${this.scope}.${group}.${partition}`
  }

  /** Every lease at once (one round trip, not one per lease: a renewal must outpace the TTL on a slow NATS); throws the first failure once all have settled. */
  private async renew(group: string, held: Map<number, number>): Promise<void> {
    const renewals = [...held].map(async ([partition, revision]) => {
      try {
        held.set(partition, await this.kv.update(this.leaseKey(group, partition), this.memberId, revision))
      } catch (err) {
        if (!isWrongRevision(err)) throw err
        held.delete(partition) // It expired and another process took it.
      }
    })
    const failed = (await Promise.allSettled(renewals)).find((outcome) => outcome.status === 'rejected')
    if (failed) throw failed.reason
  }

  private async take(group: string, held: Map<number, number>, partition: number): Promise<void> {
    try {
      held.set(partition, await this.kv.create(this.leaseKey(group, partition), this.memberId))
    } catch (err) {
      if (!isWrongRevision(err)) throw err
    }
  }

  private async release(group: string, held: Map<number, number>, partition: number): Promise<void> {
    const revision = held.get(partition)
    held.delete(partition)
    await this.kv.delete(this.leaseKey(group, partition), revision === undefined ? {} : { previousSeq: revision }).catch(() => undefined)
  }
}

/** A KV key token: letters, digits, `-` and `_`. */
function keyToken(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_')
}

function isWrongRevision(err: unknown): boolean {
  return isWrongLastSequence(err)
}
