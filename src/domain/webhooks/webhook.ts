import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js'
import type { EventData } from '../events/common.js'
import type * as schemas from '../events/webhooks.js'
import type { Aggregate, AggregateCategory, EventDraft } from '../message.js'

/** The events a webhook may subscribe to, as receivers see them (`type` in the body). */
export const WEBHOOK_EVENT_TYPES = [
  'task.created',
  'task.started',
  'task.completed',
  'task.failed',
  'action.pending_approval',
  'action.decided',
  'schedule.created',
  'schedule.changed',
  'schedule.paused',
  'schedule.resumed',
  'schedule.deleted',
  'schedule.fired',
  'schedule.tick_skipped',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]
/** What a webhook registered without `events` receives: the task events; approvals and schedules are asked for by name. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['task.created', 'task.started', 'task.completed', 'task.failed']

/** A log event a webhook may hear of: the category whose subjects carry it, and the public type it is sent as. */
interface SourceEvent {
  readonly category: AggregateCategory
  readonly type: string
  readonly sentAs: WebhookEventType
}

/** One table, so that what the fan-out reads (WEBHOOK_SOURCE_EVENTS) and what it sends (`webhookEventOf`) cannot drift apart. */
const SOURCE_EVENTS: readonly SourceEvent[] = [
  { category: 'task', type: 'TaskCreated', sentAs: 'task.created' },
  { category: 'task', type: 'TaskStarted', sentAs: 'task.started' },
  { category: 'task', type: 'TaskCompleted', sentAs: 'task.completed' },
  { category: 'task', type: 'TaskFailed', sentAs: 'task.failed' },
  // Only a proposal that awaits approval is sent (webhookEventOf).
  { category: 'task', type: 'TaskActionProposed', sentAs: 'action.pending_approval' },
  { category: 'action', type: 'ActionApproved', sentAs: 'action.decided' },
  { category: 'action', type: 'ActionRejected', sentAs: 'action.decided' },
  // A schedule's own events (ADR 0048): asked for by name, never in the default.
  { category: 'schedule', type: 'ScheduleCreated', sentAs: 'schedule.created' },
  { category: 'schedule', type: 'ScheduleChanged', sentAs: 'schedule.changed' },
  { category: 'schedule', type: 'SchedulePaused', sentAs: 'schedule.paused' },
  { category: 'schedule', type: 'ScheduleResumed', sentAs: 'schedule.resumed' },
  { category: 'schedule', type: 'ScheduleDeleted', sentAs: 'schedule.deleted' },
  { category: 'schedule', type: 'ScheduleFired', sentAs: 'schedule.fired' },
  { category: 'schedule', type: 'ScheduleTickSkipped', sentAs: 'schedule.tick_skipped' },
]

const SENT_AS = new Map(SOURCE_EVENTS.map(({ type, sentAs }) => [type, sentAs]))

/** The public type a log event is sent as, if any; a proposed action counts only when it awaits approval. */
export function webhookEventOf(event: { readonly type: string; readonly data: unknown }): WebhookEventType | undefined {
  if (event.type === 'TaskActionProposed' && (event.data as { status?: string }).status !== 'pending_approval') return undefined
  return SENT_AS.get(event.type)
}

/** The log's subjects the fan-out reads, as [category, event type]: every event `webhookEventOf` may name. */
export const WEBHOOK_SOURCE_EVENTS: readonly (readonly [AggregateCategory, string])[] = SOURCE_EVENTS.map(({ category, type }) => [category, type])

/** An account's webhooks are few: a receiver per integration, not per task. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20
export const MAX_URL_LENGTH = 2000
/**
 * Replaced secrets that may keep signing at once (WEBHOOKS_PREVIOUS_SECRETS_KEPT, 1 by default):
 * few, since each one is another key a receiver accepts and another signature on every delivery.
 */
export const MAX_PREVIOUS_SECRETS_KEPT = 3

/**
 * The signing secret rests only encrypted (`encryptedSecret`, AES-256-GCM under the
 * operator's WEBHOOKS_SECRET_KEY): the deliverer must read it back to sign, so a hash
 * would not do, and event data never holds a secret in plain text (design invariant 8).
 */
export type WebhookRegistered = EventDraft<'WebhookRegistered', EventData<typeof schemas.WebhookRegisteredData>>
export type WebhookDeleted = EventDraft<'WebhookDeleted', EventData<typeof schemas.WebhookDeletedData>>
/** A new signing secret; the one it replaces still signs until `previousValidUntil` (src/domain/webhooks/secrets.ts). */
export type WebhookSecretRotated = EventDraft<'WebhookSecretRotated', EventData<typeof schemas.WebhookSecretRotatedData>>
/** The same secrets sealed again under the operator's current key (`mats webhooks reseal`). */
export type WebhookSecretResealed = EventDraft<'WebhookSecretResealed', EventData<typeof schemas.WebhookSecretResealedData>>
export type WebhookEvent = WebhookRegistered | WebhookDeleted | WebhookSecretRotated | WebhookSecretResealed

/** A secret a rotation replaced: it still signs until `validUntil`. */
export interface PreviousSecret {
  readonly encryptedSecret: string
  readonly validUntil: string
}

/** The sealed secrets a webhook signs with: its own, and those rotations replaced (newest first) while they are still valid. */
export interface WebhookSecrets {
  readonly encryptedSecret: string
  /** At most the number the last rotation kept (`previousKept`, WEBHOOKS_PREVIOUS_SECRETS_KEPT); expired ones are skipped when signing. */
  readonly previous: readonly PreviousSecret[]
}

export type WebhookState = { readonly status: 'absent' } | { readonly status: 'active' | 'deleted'; readonly url: string; readonly secrets: WebhookSecrets }

export const Webhook: Aggregate<WebhookState, WebhookEvent> = {
  category: 'webhook',
  initialState: { status: 'absent' },
  versions: { WebhookRegistered: 1, WebhookDeleted: 1, WebhookSecretRotated: 1, WebhookSecretResealed: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookRegistered':
        return { status: 'active', url: event.data.url, secrets: { encryptedSecret: event.data.encryptedSecret, previous: [] } }
      case 'WebhookDeleted':
        return state.status === 'absent' ? state : { ...state, status: 'deleted' }
      case 'WebhookSecretRotated':
      case 'WebhookSecretResealed':
        return state.status === 'absent' ? state : { ...state, secrets: secretsAfter(state.secrets, event) }
    }
  },
}

/**
 * How an event changes the sealed secrets; the read model keeps them the same way
 * (projections/read-models/webhooks.ts). A rotation puts the replaced secret first and keeps
 * the number it recorded (1 in events from before `previousKept`); a reseal replaces each
 * previous secret by its resealed form, dropping those it left out (null: expired).
 */
export function secretsAfter(secrets: WebhookSecrets, event: WebhookSecretRotated | WebhookSecretResealed): WebhookSecrets {
  if (event.type === 'WebhookSecretRotated') {
    const replaced = { encryptedSecret: secrets.encryptedSecret, validUntil: event.data.previousValidUntil }
    return { encryptedSecret: event.data.encryptedSecret, previous: [replaced, ...secrets.previous].slice(0, event.data.previousKept ?? 1) }
  }
  const { encryptedSecret, previousEncryptedSecret, previousEncryptedSecrets } = event.data
  const resealed = previousEncryptedSecrets ?? [previousEncryptedSecret]
  const previous = secrets.previous.flatMap((old, i) => {
    const sealed = resealed[i]
    return sealed ? [{ ...old, encryptedSecret: sealed }] : []
  })
  return { encryptedSecret, previous }
}

/** The previous secrets of a read-model document: a list, or one object (or null, or nothing) in documents projected before several were kept. */
export function previousSecretsOf(stored: readonly PreviousSecret[] | PreviousSecret | null | undefined): readonly PreviousSecret[] {
  if (!stored) return []
  return Array.isArray(stored) ? stored : [stored as PreviousSecret]
}

export interface RegisterWebhook {
  readonly url: string
  readonly events: readonly WebhookEventType[] | undefined
  readonly encryptedSecret: string
  /** Webhooks the account has now, not counting deleted ones. */
  readonly activeWebhooks: number
}

export function decideRegisterWebhook(command: RegisterWebhook, state: WebhookState): WebhookEvent[] {
  if (state.status !== 'absent') throw new ConflictError('webhook already exists')
  const problem = urlProblem(command.url)
  if (problem) throw new InvalidInputError(`body.url: ${problem}`)
  if (command.activeWebhooks >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw new ConflictError(`an account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`, { code: 'webhook_limit_reached' })
  }
  const wanted = new Set(command.events ?? DEFAULT_WEBHOOK_EVENTS)
  const events = WEBHOOK_EVENT_TYPES.filter((type) => wanted.has(type))
  if (events.length === 0) throw new InvalidInputError('body.events: must name at least one event')
  return [{ type: 'WebhookRegistered', data: { url: new URL(command.url).href, events, encryptedSecret: command.encryptedSecret } }]
}

export function decideDeleteWebhook(state: WebhookState): WebhookEvent[] {
  if (state.status !== 'active') throw new NotFoundError('webhook not found')
  return [{ type: 'WebhookDeleted', data: {} }]
}

/** What is wrong with a receiver URL on its face (its addresses are checked where DNS is: src/infra/net). */
export function urlProblem(text: string): string | null {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an absolute http:// or https:// URL'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http:// or https:// URL'
  // Credentials in the URL would rest in the log in plain text and be sent on every attempt.
  if (url.username || url.password) return 'must not carry a user name or password'
  if (url.hash) return 'must not have a #fragment'
  return null
}
