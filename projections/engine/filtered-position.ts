/**
 * The first stream sequence after `after` that holds a message on the view's subjects, as the
 * stream's leader has it now; `Infinity` when there is none yet.
 */
export type NextOnSubjects = (after: number) => Promise<number>

interface Waiter {
  readonly fence: number
  readonly done: (reached: boolean) => void
}

/** How long the view reads nothing before a wait asks the stream: while messages come, reading passes the fences. */
const PROBE_WHEN_IDLE_MS = 3
/** After a question NATS did not answer, the next one waits this long. */
const PROBE_RETRY_MS = 100

/**
 * How far a view delivered only some of a stream's subjects has read the stream, in stream
 * sequences: `position` is a sequence up to which it has read every message on its subjects.
 * A fence (the stream's last sequence when a check began) that falls on another subject's
 * message is never reached by reading: when the view has read nothing for a moment and is
 * short of a fence, it asks the stream for the next message on its subjects after its
 * position: nothing lies before that one (ADR 0062). A consumer's `num_pending` can't tell:
 * nats-server counts a message there after it has acknowledged its append.
 */
export class FilteredPosition {
  private position = 0
  private lastReadAt = performance.now()
  private readonly waiters = new Set<Waiter>()
  private probing = false
  private timer: NodeJS.Timeout | undefined
  /** Moves at each start over: an answer to a question asked before it says nothing of the new reading. */
  private epoch = 0
  /** The next message on the view's subjects the last answer named: asking again before it is read tells nothing new. */
  private nextNamed = 0

  /** `onFailure`: told of a question NATS did not answer (the waits then end at their timeout, unreached). */
  constructor(
    private readonly next: NextOnSubjects,
    private readonly onFailure: (err: unknown) => void = () => undefined,
    private readonly idleMs = PROBE_WHEN_IDLE_MS,
  ) {}

  reached(fence: number): boolean {
    return this.position >= fence
  }

  /** A message at stream sequence `seq` was read (or the view starts reading after `seq`). */
  read(seq: number): void {
    this.lastReadAt = performance.now()
    this.advance(seq)
    this.askWhenIdle()
  }

  /** Resolves true once the view has read everything on its subjects up to `fence`; false after `timeoutMs` or at `abandon`. */
  wait(fence: number, timeoutMs: number): Promise<boolean> {
    if (this.reached(fence)) return Promise.resolve(true)
    return new Promise((resolve) => {
      const waiter: Waiter = {
        fence,
        done: (reached) => {
          clearTimeout(timer)
          this.waiters.delete(waiter)
          resolve(reached)
        },
      }
      const timer = setTimeout(() => waiter.done(false), timeoutMs)
      this.waiters.add(waiter)
      this.askWhenIdle()
    })
  }

  /** The view starts over (a new consumer from the stream's end): nothing waited for can be told reached. */
  abandon(): void {
    for (const waiter of this.waiters) waiter.done(false)
    clearTimeout(this.timer)
    this.timer = undefined
    this.position = 0
    this.nextNamed = 0
    this.epoch++
  }

  private advance(seq: number): void {
    if (seq <= this.position) return
    this.position = seq
    for (const waiter of this.waiters) if (this.reached(waiter.fence)) waiter.done(true)
  }

  /** One question at a time, once the view has read nothing for `idleMs`, while some wait. */
  private askWhenIdle(delayMs = Math.max(0, this.lastReadAt + this.idleMs - performance.now())): void {
    if (this.timer || this.probing || this.waiters.size === 0 || this.position < this.nextNamed) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (performance.now() - this.lastReadAt < this.idleMs) this.askWhenIdle()
      else void this.ask()
    }, delayMs)
    this.timer.unref()
  }

  private async ask(): Promise<void> {
    if (this.waiters.size === 0) return
    const [since, epoch] = [this.position, this.epoch]
    // Every fence waited for now was taken before the question: none lies past the stream's end as the leader reads it.
    const furthest = Math.max(...[...this.waiters].map((waiter) => waiter.fence))
    this.probing = true
    try {
      const next = await this.next(since)
      // Nothing on the view's subjects between `since` and `next`, and sequences only grow: that holds for good.
      if (epoch === this.epoch) {
        this.advance(Number.isFinite(next) ? next - 1 : furthest)
        this.nextNamed = Number.isFinite(next) ? next : 0
      }
    } catch (err) {
      // NATS slow or away: asked again a little later; the waits end at their timeout, as those of a view that is behind.
      this.probing = false
      this.onFailure(err)
      return this.askWhenIdle(PROBE_RETRY_MS)
    }
    this.probing = false
    this.askWhenIdle()
  }
}
