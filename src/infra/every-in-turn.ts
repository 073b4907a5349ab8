/** Calls `beat` every `ms` until the returned function is called. */
export type Beats = (beat: () => void, ms: number) => () => void

const intervals: Beats = (beat, ms) => {
  const timer = setInterval(beat, ms)
  return () => clearInterval(timer)
}

/**
 * `step` every `everyMs`, one at a time: a beat that comes while a step is under way is
 * skipped, not queued. Queued, the beats missed while NATS answered slowly ran back to back
 * once it answered again (a lease renewal per beat, each a dozen requests), on the server that
 * was already the slow part.
 */
export class EveryInTurn {
  private stopBeats: (() => void) | undefined
  private current: Promise<void> | null = null

  constructor(
    private readonly step: () => Promise<void>,
    private readonly everyMs: number,
    private readonly beats: Beats = intervals,
  ) {}

  /** The first step now (its failure is the caller's), then one a beat. */
  async start(): Promise<void> {
    await this.run()
    this.stopBeats ??= this.beats(() => {
      if (!this.current) void this.run().catch(() => undefined)
    }, this.everyMs)
  }

  /** No step begins from now on; resolves once the one under way (if any) has ended, however it ended. */
  async stop(): Promise<void> {
    this.stopBeats?.()
    await this.current?.catch(() => undefined)
  }

  private run(): Promise<void> {
    const step = this.step().finally(() => {
      if (this.current === step) this.current = null
    })
    this.current = step
    return step
  }
}
