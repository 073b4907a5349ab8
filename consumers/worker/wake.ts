/**
 * The wake the worker's pull loops sleep on: a slot freed, a doorbell or a pull that ended
 * rings it. A ring while no loop waits is kept, so the next wait returns at once and a loop
 * busy fetching does not miss the room that opened meanwhile.
 */
export class Wake {
  private resolve: (() => void) | undefined
  private rung = false

  ring(): void {
    this.rung = true
    this.resolve?.()
  }

  /** Returns on the next ring (or one that came since the last wait), or after `ms`. */
  async wait(ms?: number): Promise<void> {
    if (!this.rung) {
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        this.resolve = resolve
        if (ms !== undefined) timer = setTimeout(resolve, ms)
      })
      clearTimeout(timer)
    }
    this.resolve = undefined
    this.rung = false
  }
}
