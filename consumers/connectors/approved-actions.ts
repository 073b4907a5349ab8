import { ensureDurableConsumer, provisioned } from '../../src/infra/nats/provisioning.js'
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import { execute } from '../../src/commands/execute.js'
import { Action, decideExecutionOutcome, type ActionApproved, type ExecutionOutcome } from '../../src/domain/actions/action.js'
import type { Recorded } from '../../src/domain/message.js'
import type { AppContext } from '../../src/app-context.js'
import { PoisonMessages } from '../../src/infra/mongo/poison-messages.js'
import { decodeEvent } from '../../src/infra/nats/event-store.js'
import { HandlingFailures, settleFailed } from '../../src/infra/nats/failed-messages.js'
import { eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'
import type { PlatformConnectors } from './platform-connectors.js'

export const ACTION_EXECUTOR_CONSUMER = 'mats-action-executor'
const STREAM = streamOf('action')
const NANOS_PER_MS = 1_000_000
/** A connector call gets half the ack wait, so that it ends (and is recorded) before the approval is redelivered. */
const ACK_WAIT_MS = 60_000
const RETRY_MS = 5_000

/**
 * Carries out approved actions (ActionApproved) through the platform's connector, from one
 * durable consumer shared by every worker process, and records the outcome as ActionExecuted
 * or ActionExecutionFailed. Without a connector for the platform it records nothing: the
 * action stays `approved` for the caller's own integration. At least once: a process that
 * dies between the call and its record leaves the approval to be delivered again, and the
 * connector gets the action id to make the change once.
 */
export class ApprovedActionExecutor {
  private messages: ConsumerMessages | undefined
  private loop: Promise<void> | undefined
  private stopping = false
  private readonly log: Logger
  private readonly poison: PoisonMessages
  private readonly failures = new HandlingFailures()

  constructor(
    private readonly infra: AppContext,
    private readonly connectors: PlatformConnectors,
  ) {
    this.log = infra.log.child({ role: 'worker', consumer: ACTION_EXECUTOR_CONSUMER })
    this.poison = new PoisonMessages(infra.db, this.log)
  }

  async start(): Promise<void> {
    const config = {
      durable_name: ACTION_EXECUTOR_CONSUMER,
      filter_subject: eventTypeSubjects('action', 'ActionApproved'),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ACK_WAIT_MS * NANOS_PER_MS,
      max_deliver: -1,
    }
    const { js, jsm } = this.infra
    await ensureDurableConsumer(jsm, STREAM, config, 'the action executor consumer')
    const consumer = await provisioned('bind the action executor consumer', () => js.consumers.get(STREAM, ACTION_EXECUTOR_CONSUMER))
    this.messages = await consumer.consume({ max_messages: 10 })
    this.loop = this.consumeAll(this.messages)
  }

  async stop(): Promise<void> {
    this.stopping = true
    await this.messages?.close()
    await this.loop
  }

  private async consumeAll(messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      try {
        await this.carryOut(msg)
        msg.ack()
        this.failures.forget(msg)
      } catch (err) {
        if (this.stopping) return msg.nak()
        await settleFailed(msg, err, { consumer: ACTION_EXECUTOR_CONSUMER, poison: this.poison, failures: this.failures, log: this.log, retryMs: RETRY_MS })
      }
    }
  }

  private async carryOut(msg: JsMsg): Promise<void> {
    const approved = decodeEvent(msg) as unknown as Recorded<ActionApproved>
    const connector = this.connectors.find(approved.data.platform)
    if (!connector) return
    const key = { accountId: approved.accountId, aggregateId: approved.aggregateId }
    const loaded = await this.infra.events.load(Action, key, { atLeast: msg.seq })
    if (loaded.state.status !== 'approved') return
    let outcome: ExecutionOutcome
    try {
      const { taskId: _task, reason: _reason, ...action } = approved.data
      outcome = await connector.execute({ ...action, actionId: approved.aggregateId }, AbortSignal.timeout(ACK_WAIT_MS / 2))
    } catch (err) {
      outcome = { error: `${connector.platform} refused or failed: ${err instanceof Error ? err.message : String(err)}` }
    }
    const issuer = { correlationId: approved.metadata.correlationId, keyId: null, receivedAt: null }
    await execute(this.infra, Action, key, (state) => decideExecutionOutcome(outcome, state), issuer, { loaded })
    this.log.info({ actionId: approved.aggregateId, platform: connector.platform, outcome }, 'approved action carried out')
  }
}
