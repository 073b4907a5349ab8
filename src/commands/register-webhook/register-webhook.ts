import { randomUUID } from 'node:crypto'
import { InvalidInputError } from '../../domain/errors.js'
import { generateWebhookSecret } from '../../domain/webhooks/signing.js'
import { decideRegisterWebhook, urlProblem, Webhook, type WebhookEventType } from '../../domain/webhooks/webhook.js'
import type { SecretBox } from '../../infra/crypto/secret-box.js'
import type { CommandContext } from '../context.js'
import { AddressNotAllowedError, hostOf, publicAddressesOf } from '../../infra/net/public-address.js'
import { ensureWebhookStreams } from '../../infra/nats/webhook-streams.js'
import { FanOutCursors } from '../../infra/nats/fan-out-cursors.js'
import { execute, type Issuer } from '../execute.js'

export interface RegisteredWebhook {
  readonly webhook: { readonly id: string; readonly url: string; readonly events: WebhookEventType[]; readonly createdAt: string }
  /** Shown once, here; the log holds it only encrypted. */
  readonly secret: string
}

/** Registering counts the account's webhooks first (a limit), on the read side the composition root wires in. */
export interface RegisterWebhookContext extends CommandContext {
  readonly countActiveWebhooks: (accountId: string) => Promise<number>
}

export async function registerWebhook(
  infra: RegisterWebhookContext,
  box: SecretBox,
  input: { readonly accountId: string; readonly url: string; readonly events?: readonly WebhookEventType[] | undefined },
  issuer: Issuer,
): Promise<RegisteredWebhook> {
  await refusePrivateAddresses(input.url, infra.config.WEBHOOKS_ALLOW_PRIVATE_URLS)
  const existing = await infra.countActiveWebhooks(input.accountId)
  // Before the webhook exists, so that every task event after it reaches the fan-out (the account's cursor starts at the log's head, ADR 0042).
  await ensureWebhookStreams(infra.jsm, { replicas: infra.config.NATS_STREAM_REPLICAS, retryWindowMs: infra.config.WEBHOOKS_RETRY_WINDOW_MS })
  await FanOutCursors.startAccount(infra.js, infra.jsm, input.accountId, { replicas: infra.config.NATS_STREAM_REPLICAS })
  const secret = generateWebhookSecret()
  const command = { url: input.url, events: input.events, encryptedSecret: box.seal(secret), activeWebhooks: existing }
  const id = randomUUID()
  const { appended } = await execute(infra, Webhook, { accountId: input.accountId, aggregateId: id }, (state) => decideRegisterWebhook(command, state), issuer, { isNew: true })
  const registered = appended[0]
  if (registered?.type !== 'WebhookRegistered') throw new Error('registration appended no WebhookRegistered')
  const { url, events } = registered.data
  return { webhook: { id, url, events: [...events], createdAt: registered.occurredAt }, secret }
}

/** The URL's host must resolve to public addresses only; checked again at each delivery (DNS can change). */
async function refusePrivateAddresses(url: string, allowPrivate: boolean): Promise<void> {
  const problem = urlProblem(url)
  if (problem) throw new InvalidInputError(`body.url: ${problem}`)
  try {
    await publicAddressesOf(hostOf(new URL(url)), allowPrivate)
  } catch (err) {
    if (err instanceof AddressNotAllowedError) throw new InvalidInputError(`body.url: ${err.message}; webhooks must reach a public address`)
    throw err
  }
}
