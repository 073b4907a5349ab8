import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { WEBHOOK_SOURCE_EVENTS } from '../../src/domain/webhooks/webhook.js'
import { settleWithin } from '../../src/infra/deadline.js'
import { closeOrdered } from '../../src/infra/nats/ordered-consumers.js'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'

const STREAM = streamOf('task')
const STOP_MS = 2000
const REOPEN_MS = 1000
/** The ordered consumer each webhooks process holds on MATS_TASKS, as operators see it listed. */
export const DOORBELL_PREFIX = 'webhooks_fan_out_'

/**
 * Tells the fan-out which account has a new task event (ADR 0042): an ordered consumer on the
 * events webhooks are made of, headers only, from this process's start on. It reads nothing
 * but each event's subject (the account is in it), so a flood of one account's events costs
 * microseconds each here; the work of fanning them out is done in that account's lane. An
 * event stored before the consumer started is found by the lane reading from its cursor.
 */
export class FanOutDoorbell {
  private consumer: Consumer | undefined
  private messages: ConsumerMessages | undefined
  private stopping = false

  constructor(
    private readonly ring: (accountId: string, seq: number) => void,
    private readonly log: Logger,
  ) {}

  /** Follows the task events stored from now on (the stream's head), until stopped. */
  async listen(js: JetStreamClient, jsm: JetStreamManager): Promise<void> {
    const { state } = await jsm.streams.info(STREAM)
    await this.open(js, state.last_seq + 1)
  }

  async stop(): Promise<void> {
    this.stopping = true
    if (this.consumer) await settleWithin(closeOrdered(this.consumer, this.messages), STOP_MS)
  }

  /** From a given sequence, not "new": a consumer replaced after an outage goes on after the last event it heard. */
  private async open(js: JetStreamClient, from: number): Promise<void> {
    const consumer = await js.consumers.get(STREAM, {
      name_prefix: `${DOORBELL_PREFIX}${randomUUID().replaceAll('-', '')}`,
      filter_subjects: WEBHOOK_SOURCE_EVENTS.map(([category, type]) => eventTypeSubjects(category, type)),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
      headers_only: true,
    })
    this.consumer = consumer
    this.messages = await consumer.consume()
    void this.follow(js, consumer, this.messages, from)
  }

  private async follow(js: JetStreamClient, consumer: Consumer, messages: ConsumerMessages, from: number): Promise<void> {
    let next = from
    try {
      for await (const msg of messages) {
        next = msg.seq + 1
        const accountId = msg.subject.split('.')[2]
        if (accountId) this.ring(accountId, msg.seq)
      }
    } catch (err) {
      this.log.warn({ err }, 'webhooks fan-out: the task event consumer failed; following again')
    }
    await settleWithin(closeOrdered(consumer, messages), STOP_MS)
    while (!this.stopping) {
      await sleep(REOPEN_MS)
      if (this.stopping) return
      try {
        return await this.open(js, next)
      } catch (err) {
        this.log.warn({ err }, 'webhooks fan-out: could not follow the task events again yet')
      }
    }
  }
}
