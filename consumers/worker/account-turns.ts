import { JetStreamApiError, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg, type StreamInfo } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { DISPATCH_CONSUMER_IDLE_MS, DISPATCH_PULL_EXPIRES_MS, DISPATCH_ROOT, DISPATCH_STREAM, dispatchConsumerConfig } from '../../src/infra/nats/dispatch-stream.js'
import { accountAfter } from '../../src/infra/nats/subjects.js'

/** nats-server's "consumer already exists" (with other settings) and "consumer name already in use". */
const CONSUMER_EXISTS = [10148, 10013]

/** What the worker holds of an account's tasks. */
export interface TasksHere {
  /** Tasks held, not started yet. */
  heldOf(accountId: string): number
  /** Tasks whose message is not settled yet here: held, running, or ending. */
  ownedOf(accountId: string): number
}

/**
 * The accounts with tasks in the dispatch stream, and a pull from each in turn (ADR 0052).
 * Which accounts wait comes from the stream's per-subject state (one request for all of them)
 * and from doorbells (a task creation rang, ADR 0064); each turn asks an account's durable for a few
 * messages, the accounts least recently given a turn first, so one account's deep backlog
 * costs the others one turn each, never its depth.
 */
export class AccountTurns {
  /** Accounts last seen with more messages than this worker holds or runs (waiting, or delivered to another worker and not yet acknowledged). */
  private readonly waiting = new Set<string>()
  /**
   * Accounts whose doorbell rang since their last pull began. Kept apart from `waiting`, which
   * a state read rebuilds: a read made before the server sourced the rung task would drop it,
   * and its account would wait a second for the next read.
   */
  private readonly rung = new Set<string>()
  /** When each account's doorbell was last heard: a pull of it that ends full within a pull's wait of that gets another turn. */
  private readonly heardAt = new Map<string, number>()
  /** Messages asked of each account by its pull in flight and not delivered yet. */
  private readonly asking = new Map<string, number>()
  /** Each account's last turn: its place among the turns (least recent first) and when it was. */
  private readonly lastTurn = new Map<string, { turn: number; at: number }>()
  private readonly consumers = new Map<string, Consumer>()
  private readonly pulls = new Set<ConsumerMessages>()
  private turns = 0
  private stopped = false

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly ackWaitMs: number,
    private readonly deliver: (msg: JsMsg) => void,
    private readonly here: TasksHere,
    private readonly pullEnded: () => void,
    private readonly log: Logger,
    /** An account given no turn for this long, with nothing waiting, is forgotten (its durable is gone too). */
    private readonly idleMs = DISPATCH_CONSUMER_IDLE_MS,
  ) {}

  /** Accounts this worker keeps anything of (their last turn, their durable): those served within `idleMs`, and those waiting. */
  get remembered(): number {
    return new Set([...this.lastTurn.keys(), ...this.consumers.keys()]).size
  }

  /** Messages asked for and not delivered yet: they count against the worker's lookahead. */
  get asked(): number {
    let sum = 0
    for (const n of this.asking.values()) sum += n
    return sum
  }

  /**
   * Reads which accounts have messages in the dispatch stream (one request). The stream counts
   * a task until its message is acknowledged, that is while it runs too: an account whose
   * messages are all held or running here has nothing to pull, and pulling it anyway cost a
   * request and an empty answer a second for each such account, each holding a slot of the
   * lookahead meanwhile. (Held or running by another worker, they still cost that: this worker
   * cannot tell them from a redelivery it must take.) Returns what it read.
   */
  async refresh(): Promise<StreamInfo> {
    const info = await this.jsm.streams.info(DISPATCH_STREAM, { subjects_filter: `${DISPATCH_ROOT}.*` })
    this.waiting.clear()
    for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
      const accountId = accountAfter(DISPATCH_ROOT, subject)
      if (count > this.here.ownedOf(accountId)) this.waiting.add(accountId)
    }
    this.forgetIdle(performance.now())
    return info
  }

  /** A task of this account was just created: it gets a turn without waiting for the next refresh (a turn after the pull in flight, if any: the task may land after it). */
  ring(accountId: string): void {
    this.rung.add(accountId)
    this.heardAt.set(accountId, performance.now())
  }

  /**
   * Starts pulls, `room` messages at most in all, from the waiting accounts without one in
   * flight, least recently served first: each gets `room / accounts` (at least one). An account
   * with nothing held here gets a pull of one even with no room left: another account's backlog
   * filling the lookahead must not keep its first task out of the scheduler, which starts it
   * at the next free slot (it has fewer tasks running). That exceeds the lookahead by at most
   * one task per waiting account.
   */
  takeTurns(room: number): void {
    const candidates = [...new Set([...this.waiting, ...this.rung])].filter((a) => !this.asking.has(a)).sort((a, b) => (this.lastTurn.get(a)?.turn ?? 0) - (this.lastTurn.get(b)?.turn ?? 0))
    if (candidates.length === 0) return
    const each = Math.max(1, Math.floor(room / candidates.length))
    for (const accountId of candidates) {
      if (room > 0) {
        const n = Math.min(each, room)
        room -= n
        void this.pull(accountId, n)
      } else if (this.here.heldOf(accountId) === 0) void this.pull(accountId, 1)
    }
  }

  stop(): void {
    this.stopped = true
    for (const pull of this.pulls) void pull.close()
  }

  private async pull(accountId: string, n: number): Promise<void> {
    this.asking.set(accountId, n)
    this.rung.delete(accountId)
    this.lastTurn.set(accountId, { turn: ++this.turns, at: performance.now() })
    let got = 0
    let pendingAfter = 0
    let pull: ConsumerMessages | undefined
    try {
      const consumer = await this.consumerOf(accountId)
      if (this.stopped) return
      pull = await consumer.fetch({ max_messages: n, expires: DISPATCH_PULL_EXPIRES_MS })
      this.pulls.add(pull)
      for await (const msg of pull) {
        got++
        pendingAfter = msg.info.pending
        this.asking.set(accountId, n - got)
        this.deliver(msg)
      }
    } catch (err) {
      // The consumer removed (idle, or by hand): made again on the account's next turn.
      this.consumers.delete(accountId)
      if (!this.stopped) this.log.warn({ err, accountId }, "pulling an account's tasks failed; it gets another turn")
    } finally {
      if (pull) this.pulls.delete(pull)
      this.asking.delete(accountId)
      // Fewer than asked: nothing more to take there until a refresh or a doorbell says otherwise.
      if (got < n) this.waiting.delete(accountId)
      else if (!this.stopped && this.mayHaveMore(accountId, pendingAfter)) this.rung.add(accountId)
      this.pullEnded()
    }
  }

  /**
   * A pull that ended full: more are waiting (the last message said so), or may be coming unrung,
   * created in the quiet time of a doorbell heard within a pull's wait (ADR 0064). Otherwise no
   * other turn: an empty pull costs a request and its answer a second later.
   */
  private mayHaveMore(accountId: string, pendingAfter: number): boolean {
    return pendingAfter > 0 || performance.now() - (this.heardAt.get(accountId) ?? Number.NEGATIVE_INFINITY) < DISPATCH_PULL_EXPIRES_MS
  }

  /**
   * Forgets the accounts given no turn for `idleMs` that wait for nothing: what is kept of each
   * would otherwise grow with every account served since the start. The server removes their
   * durables after as long idle (`inactive_threshold`), so the handle kept would be stale
   * anyway. Back, such an account is as a new one: its turn comes first, its durable is made again.
   */
  private forgetIdle(now: number): void {
    for (const [accountId, { at }] of this.lastTurn) {
      if (now - at < this.idleMs || this.waiting.has(accountId) || this.rung.has(accountId) || this.asking.has(accountId)) continue
      this.lastTurn.delete(accountId)
      this.consumers.delete(accountId)
      this.heardAt.delete(accountId)
    }
  }

  /**
   * The account's durable, made by one request whose answer is the handle (a creation with the
   * same settings as an existing one answers it): an account's first turn costs one round trip
   * to the JetStream API, not three (look up, create, look up again), which 99 accounts posting
   * at once behind a flood wait for (ADR 0054). Only a durable made with another ack wait
   * (an earlier WORKER_ACK_WAIT_MS) is updated. A failure (NATS busy or away) ends this turn;
   * the next one asks again.
   */
  private async consumerOf(accountId: string): Promise<Consumer> {
    const known = this.consumers.get(accountId)
    if (known) return known
    const config = dispatchConsumerConfig(accountId, this.ackWaitMs)
    const info = await this.jsm.consumers.add(DISPATCH_STREAM, config).catch((err: unknown) => {
      if (!(err instanceof JetStreamApiError && CONSUMER_EXISTS.includes(err.code))) throw err
      return this.jsm.consumers.update(DISPATCH_STREAM, config.durable_name, { ack_wait: config.ack_wait })
    })
    const consumer = this.js.consumers.getConsumerFromInfo(info)
    this.consumers.set(accountId, consumer)
    return consumer
  }
}
