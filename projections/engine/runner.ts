import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../src/domain/message.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'
import type { NatsLink } from '../../src/infra/nats/link.js'
import { closeOrdered, consumeFollowing, endLevel } from '../../src/infra/nats/ordered-consumers.js'
import { batchesOf } from './batches.js'
import { IDLE_CHECKPOINT_MS, Member, routeOf } from './member.js'
import { ROOT_CONTEXT } from '@opentelemetry/api'
import { inSpan, linksTo, SpanKind } from '../../src/infra/tracing/spans.js'
import { ALL_PARTITIONS } from './partitions.js'
import { publishProgress } from './progress.js'
import { EventNotAppliedError, type Projection } from './projection.js'
import type { ReadModels } from './read-models.js'

export interface RunnerDeps {
  /** When given, each applied batch is announced (see progress.ts). */
  readonly nc?: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  /** A reconnection ends the runner's consumer, which is then opened again from the checkpoints. */
  readonly link: Pick<NatsLink, 'onReconnect'>
  readonly readModels: ReadModels
  readonly log: Logger
}

export interface RunnerOptions {
  readonly batchSize?: number
  /** Write to these generations, by projection name, instead of following the active ones (rebuilds). */
  readonly generations?: ReadonlyMap<string, number>
  /** Return once every event that existed at start has been applied (rebuilds). */
  readonly untilCaughtUp?: boolean
  /** The partitions this runner writes (default: all); see partitions.ts and leases.ts. */
  readonly partitions?: readonly number[]
  /** How long a live batch waits for more events once the stream has none pending (default LINGER_MS). */
  readonly lingerMs?: number
  readonly onProgress?: (projection: string, applied: number, last: number) => void
  /** Called once a batch is written, with each projection's events (the benchmark measures lag with it). */
  readonly onApplied?: (projection: Projection, events: readonly RecordedEvent[]) => void
}

const RETRY_DELAY_MS = 1000

/** A member's part of a batch: the events it writes, and every message it owns (one that is not an event too), which its span links to. */
interface Share {
  readonly events: readonly RecordedEvent[]
  readonly messages: readonly JsMsg[]
}

const NO_SHARE: Share = { events: [], messages: [] }

/**
 * Events per batch at most. A batch's writes cost FerretDB about as much for the documents
 * an account shares (spend, usage, counts, checkpoints) as for a hundred tasks: behind a
 * burst, 300 where 100 were halved the tasks view's lag (ADR 0065). Caught up, a batch is
 * what came within LINGER_MS, whatever this is.
 */
const LIVE_BATCH = 300
/** See batches.ts: folds a task's events, which follow each other within milliseconds, into one write. */
const LINGER_MS = 50
const GENERATION_CHECK_MS = 250

/**
 * Applies the projections of one stream, for the partitions it holds, in stream order from
 * their MongoDB checkpoints: one ordered consumer for all of them, each message decoded once,
 * each projection's share of a batch written in parallel with the others'. A batch ends when
 * it is full or the consumer has nothing more pending, so a backlog is applied in large writes
 * and a live event at once. Checkpoints move only after the batch's writes, so a crash
 * re-applies at most one batch, which the `_seq` guards turn into no-ops.
 */
export class ProjectionRunner {
  private messages: ConsumerMessages | undefined
  private stopped = false
  private readonly projections: readonly Projection[]
  private readonly batchSize: number
  private readonly partitions: readonly number[]
  private readonly poison: PoisonMessages
  /** The projections being written in the pass under way. */
  private members: readonly Member[] = []
  /** Projections stopped on an event they cannot apply, by name, with the generation they stopped in. */
  private readonly halted = new Map<string, number>()

  constructor(
    private readonly deps: RunnerDeps,
    projections: Projection | readonly Projection[],
    private readonly options: RunnerOptions = {},
  ) {
    this.projections = Array.isArray(projections) ? projections : [projections as Projection]
    const streams = new Set(this.projections.map((p) => p.stream))
    if (streams.size !== 1) throw new Error(`a runner reads one stream; given ${[...streams].join(', ') || 'none'}`)
    this.batchSize = options.batchSize ?? LIVE_BATCH
    this.partitions = options.partitions ?? ALL_PARTITIONS
    this.poison = new PoisonMessages(deps.readModels.db, deps.log)
  }

  /** The stream its projections read. */
  get stream(): string {
    return this.projections[0]!.stream
  }

  /**
   * Until stopped (or caught up, for a rebuild). A failure to reach NATS or MongoDB is
   * retried from the checkpoints; an event a projection cannot apply stops that projection
   * in a live runner (halts.ts), the others going on, and fails a rebuild, since retrying it
   * would fail the same way forever.
   */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const finished = await this.runOnce()
        if (finished) return
      } catch (err) {
        if (this.stopped) return
        if (err instanceof EventNotAppliedError && !this.live) throw err
        this.deps.log[endLevel(err)]({ err, projections: this.projections.map((p) => p.name) }, 'projection failed; resuming from its checkpoint')
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS))
      }
    }
  }

  stop(): void {
    this.stopped = true
    void this.messages?.close()
    // Idle partitions' checkpoints stay where they are: whoever takes the partitions over reads on from there.
    for (const member of this.members) clearTimeout(member.idleCheckpoints)
  }

  /** Following the active generations for good, not replaying into given ones (rebuilds, tests' catch-ups). */
  private get live(): boolean {
    return this.options.generations === undefined && !this.options.untilCaughtUp
  }

  private generationOf(projection: Projection): number {
    return this.options.generations?.get(projection.name) ?? this.deps.readModels.generationOf(projection)
  }

  /** True when done for good; false to start over (a generation changed, a stopped projection was fixed). */
  private async runOnce(): Promise<boolean> {
    const members = await this.openMembers()
    this.members = members
    if (members.length === 0) return this.waitWhileAllHalted()
    const from = Math.min(...members.map((m) => m.from))
    const last = await this.lastSequence()
    if (this.options.untilCaughtUp && from >= last) return true

    // Unfiltered on purpose: a checkpoint is a position in the stream, so it must pass over
    // the events its projection ignores too, or "caught up" could never be seen.
    const consumer = await this.deps.js.consumers.get(this.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from + 1 })
    this.messages = await consumeFollowing(consumer, this.batchSize, this.deps.link)
    const watch = this.watchGenerations(members)
    try {
      if (this.stopped) return true
      return await this.applyAll(members, last)
    } finally {
      clearInterval(watch)
      await closeOrdered(consumer, this.messages)
    }
  }

  private async openMembers(): Promise<Member[]> {
    const live = this.live
    const members: Member[] = []
    for (const projection of this.projections) {
      const generation = this.generationOf(projection)
      if (this.halted.get(projection.name) === generation) continue
      this.halted.delete(projection.name)
      members.push(await Member.open(projection, generation, this.partitions, this.deps.readModels, this.deps.log, { live }))
    }
    return members
  }

  /** Every projection stopped: nothing to read until a rebuild activates another generation of one. */
  private async waitWhileAllHalted(): Promise<boolean> {
    while (!this.stopped && this.projections.every((p) => this.halted.get(p.name) === this.generationOf(p))) {
      await new Promise((r) => setTimeout(r, GENERATION_CHECK_MS))
    }
    return this.stopped
  }

  /**
   * A rebuild may flip a projection's active generation while this runner idles on the old
   * one: it then stops consuming and starts over on the new one, at once, not at its next event.
   */
  private watchGenerations(members: readonly Member[]): NodeJS.Timeout | undefined {
    if (this.options.generations !== undefined) return undefined
    const timer = setInterval(() => {
      const moved = this.projections.some((p) => (members.find((m) => m.projection === p)?.generation ?? this.halted.get(p.name)) !== this.deps.readModels.generationOf(p))
      if (moved) void this.messages?.close()
    }, GENERATION_CHECK_MS)
    timer.unref()
    return timer
  }

  private async applyAll(members: Member[], last: number): Promise<boolean> {
    if (!this.messages) return true
    const lingerMs = this.options.untilCaughtUp ? 0 : (this.options.lingerMs ?? LINGER_MS)
    for await (const messages of batchesOf(this.messages, this.batchSize, lingerMs)) {
      // On a failure, close before leaving the loop: leaving waits for the consumer's pending read, which only a close (or the next message) ends.
      const goOn = await this.applyBatch(members, last, messages).catch((err: unknown) => {
        void this.messages?.close()
        throw err
      })
      if (!goOn) break
    }
    await this.messages.close()
    return this.stopped || this.options.untilCaughtUp === true
  }

  /** Writes one batch for every member and moves their checkpoints past it; false when the runner should stop reading. */
  private async applyBatch(members: Member[], last: number, messages: readonly JsMsg[]): Promise<boolean> {
    const msg = messages.at(-1)!
    const shares = await this.decodeShares(members, messages)
    const failures = await Promise.all(
      members.map((member) =>
        this.project(member, shares.get(member) ?? NO_SHARE).then(
          () => null,
          (err: unknown) => err,
        ),
      ),
    )
    for (const [i, failure] of failures.entries()) if (failure !== null) await this.halt(members[i]!, failure)
    members.splice(0, members.length, ...members.filter((m) => !this.halted.has(m.projection.name)))
    await this.advance(members, shares, msg, last)
    if (this.deps.nc) publishProgress(this.deps.nc, members, msg.seq, this.partitions)
    if (members.length === 0) return false
    if (this.options.untilCaughtUp && msg.info.pending === 0) return false
    if (this.stopped) return false
    return this.options.generations !== undefined || members.every((m) => this.deps.readModels.generationOf(m.projection) === m.generation)
  }

  /**
   * Writes a member's share of the batch, traced as a span of its own linked to the spans that
   * appended its events (a batch follows from many requests, so it has links, not a parent).
   */
  private project(member: Member, { events, messages }: Share): Promise<void> {
    if (events.length === 0) return member.applier.apply(events)
    const { name } = member.projection
    const links = linksTo(messages)
    const options = { kind: SpanKind.CONSUMER, links, attributes: { 'mats.projection': name, 'mats.generation': member.generation, 'mats.events': events.length } }
    return inSpan(`project ${name}`, options, () => member.applier.apply(events), ROOT_CONTEXT)
  }

  /**
   * A live runner stops a projection that cannot apply an event, where it is (halts.ts): it
   * no longer writes, and its checkpoint stays before the event. Anything else fails the batch.
   */
  private async halt(member: Member, failure: unknown): Promise<void> {
    if (!(failure instanceof EventNotAppliedError) || !this.live) throw failure
    if (!(await member.halts.record(member.generation, failure))) throw failure
    this.halted.set(member.projection.name, member.generation)
  }

  /**
   * Moves every member's checkpoints past the batch together (one bulk write per 40). Should
   * that fail, no member's callbacks run: the runner resumes from the checkpoints, which moved
   * for none or some, and the batch's events are applied again where they did not.
   */
  private async advance(members: readonly Member[], shares: ReadonlyMap<Member, Share>, msg: JsMsg, last: number): Promise<void> {
    const moves = members.map((member) => {
      const { events } = shares.get(member) ?? NO_SHARE
      return { member, events, projection: member.projection, generation: member.generation, partitions: member.checkpointsToWrite(events, msg) }
    })
    await this.deps.readModels.advanceAll(moves, msg.seq)
    await Promise.all(moves.map(({ member, partitions, events }) => this.advanced(member, partitions, events, msg, last)))
  }

  /** What follows a member's checkpoint write: its idle partitions, a stop passed, the callbacks. */
  private async advanced(member: Member, partitions: readonly number[], events: readonly RecordedEvent[], msg: JsMsg, last: number): Promise<void> {
    const { projection, generation } = member
    member.wrote(partitions, msg.seq)
    this.writeIdleCheckpointsLater(member, msg.seq)
    await member.halts.clearPassed(generation, this.partitions, msg.seq)
    this.options.onApplied?.(projection, events)
    this.options.onProgress?.(projection.name, msg.seq, Math.max(last, msg.seq + msg.info.pending))
  }

  /** See Member.checkpointsToWrite: the partitions a batch did not write to follow a moment after the last one. */
  private writeIdleCheckpointsLater(member: Member, seq: number): void {
    clearTimeout(member.idleCheckpoints)
    if (member.behind(seq).length === 0) return
    member.idleCheckpoints = setTimeout(() => {
      const partitions = member.behind(seq)
      this.deps.readModels
        .advance(member.projection, member.generation, seq, partitions)
        .then(() => member.wrote(partitions, seq))
        .catch((err: unknown) => this.deps.log.warn({ err, projection: member.projection.name }, "could not move the idle partitions' checkpoints; the next batch will"))
    }, IDLE_CHECKPOINT_MS)
    member.idleCheckpoints.unref()
  }

  /**
   * Each member's events of the batch. A message is decoded once, for all the members that
   * write it; one that is not an event is recorded by each of them and skipped (their
   * checkpoints pass it).
   */
  private async decodeShares(members: readonly Member[], messages: readonly JsMsg[]): Promise<ReadonlyMap<Member, Share>> {
    const shares = new Map<Member, { events: RecordedEvent[]; messages: JsMsg[] }>(members.map((m) => [m, { events: [], messages: [] }]))
    for (const msg of messages) {
      const route = routeOf(msg)
      const owners = members.filter((m) => m.owns(route))
      if (owners.length === 0) continue
      const decoded = tryDecodeEvent(msg)
      for (const owner of owners) {
        const share = shares.get(owner)!
        share.messages.push(msg)
        if (!(decoded instanceof UndecodableMessageError)) share.events.push(decoded)
        else await this.poison.record({ stream: this.stream, seq: msg.seq, subject: msg.subject, reason: decoded.reason }, `projection:${owner.projection.name}`)
      }
    }
    return shares
  }

  private async lastSequence(): Promise<number> {
    const info = await this.deps.jsm.streams.info(this.stream)
    return info.state.last_seq
  }
}
