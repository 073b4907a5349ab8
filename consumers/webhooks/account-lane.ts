import type { Logger } from 'pino'
import type { WebhookQueue } from '../../src/infra/nats/webhook-queue.js'
import type { Deliverer } from './deliverer.js'
import type { Slot, Slots } from './slots.js'

/** A sleeping lane checks its waits at least this often (a wait is never longer than what it waits for). */
const LONGEST_SLEEP_MS = 5000
/** A webhook the index says is empty while the leader still has a job (a lagging read) is looked at again this soon. */
const LAGGING_READ_WAIT_MS = 100
const AFTER_ERROR_MS = 2000

interface QueuedWebhook {
  /** The index revision that said it has jobs: it is dropped from the index only if no job came since. */
  readonly revision: number
  /** Not looked at before then (ms since the epoch): paused, at its cap, or its heads waiting for their retries. */
  notBefore: number
}

/**
 * One account's deliveries in this process (ADR 0033). The lane waits for one of the
 * process's slots at a time, in turn with every other account's lane, then looks at its
 * webhooks round robin and starts the first attempt it may; so a noisy account holds one
 * place in the line however deep its backlog, and a quiet account's job is looked at as soon
 * as a slot comes round to it. Between looks it sleeps until the soonest of its waits, or
 * until woken: a job queued for it (the index watch) or an attempt of it ended here.
 */
export class AccountLane {
  private readonly webhooks = new Map<string, QueuedWebhook>()
  private cursor = 0
  private accountNotBefore = 0
  private stopped = false
  private wakeUp: (() => void) | undefined
  /** Counts wakes: a wait found by a look is dropped if the lane was woken during that look (an attempt ended, a job came). */
  private wakes = 0

  constructor(
    private readonly accountId: string,
    private readonly deps: { readonly queue: WebhookQueue; readonly deliverer: Deliverer; readonly slots: Slots; readonly log: Logger },
    /** Called, synchronously, when the lane has no webhook left and ends. */
    private readonly onIdle: () => void,
  ) {}

  /** The index says the webhook has jobs (a new one, or at start). */
  queued(webhookId: string, revision: number): void {
    this.webhooks.set(webhookId, { revision, notBefore: 0 })
    this.wake()
  }

  /** The index says the webhook has no job left (some process found it empty). */
  emptied(webhookId: string, revision: number): void {
    if ((this.webhooks.get(webhookId)?.revision ?? 0) < revision) this.webhooks.delete(webhookId)
  }

  stop(): void {
    this.stopped = true
    this.wake()
  }

  async run(): Promise<void> {
    while (!this.stopped) {
      if (this.webhooks.size === 0) {
        this.onIdle()
        return
      }
      const sleepMs = this.dueInMs(Date.now())
      if (sleepMs > 0) {
        await this.sleep(sleepMs)
        continue
      }
      const slot = await this.deps.slots.reserve()
      if (!slot) return
      try {
        await this.visit(slot)
      } catch (err) {
        slot.release()
        this.deps.log.error({ err, accountId: this.accountId }, 'looking at webhook deliveries failed; trying again')
        this.accountNotBefore = Date.now() + AFTER_ERROR_MS
      }
    }
  }

  /** Tries the webhooks round robin, from the one after the last served, until one attempt starts on `slot`; else gives the slot back. */
  private async visit(slot: Slot): Promise<void> {
    const ids = [...this.webhooks.keys()]
    for (let k = 0; k < ids.length; k++) {
      const webhookId = ids[(this.cursor + k) % ids.length] as string
      const state = this.webhooks.get(webhookId)
      const now = Date.now()
      if (!state || state.notBefore > now) continue
      const wakesBefore = this.wakes
      const outcome = await this.deps.deliverer.startNext(this.accountId, webhookId, slot, () => this.wake(webhookId))
      if (outcome.kind === 'started') {
        this.cursor = (this.cursor + k + 1) % ids.length
        return
      }
      if (outcome.kind === 'empty') await this.dropIfEmpty(webhookId, state)
      else if (this.wakes !== wakesBefore) continue
      else if (outcome.scope === 'webhook') state.notBefore = Date.now() + outcome.ms
      else {
        this.accountNotBefore = Date.now() + outcome.ms
        break
      }
    }
    slot.release()
  }

  private async dropIfEmpty(webhookId: string, state: QueuedWebhook): Promise<void> {
    if (await this.deps.queue.unmarkIfEmpty(this.accountId, webhookId, state.revision)) {
      if (this.webhooks.get(webhookId) === state) this.webhooks.delete(webhookId)
    } else state.notBefore = Date.now() + LAGGING_READ_WAIT_MS
  }

  /** 0 when a webhook may be looked at now; else how long until the soonest one may. */
  private dueInMs(now: number): number {
    let soonest = Number.POSITIVE_INFINITY
    for (const state of this.webhooks.values()) soonest = Math.min(soonest, state.notBefore)
    const due = Math.max(soonest, this.accountNotBefore)
    return due <= now ? 0 : Math.min(due - now, LONGEST_SLEEP_MS)
  }

  private wake(webhookId?: string): void {
    this.wakes++
    this.accountNotBefore = 0
    const state = webhookId === undefined ? undefined : this.webhooks.get(webhookId)
    if (state) state.notBefore = 0
    const wakeUp = this.wakeUp
    this.wakeUp = undefined
    wakeUp?.()
  }

  private async sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve
      timer = setTimeout(resolve, ms)
    })
    clearTimeout(timer)
    this.wakeUp = undefined
  }
}
