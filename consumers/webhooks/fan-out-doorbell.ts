import type { Logger } from 'pino'
import { WEBHOOK_SOURCE_EVENTS } from '../../src/domain/webhooks/webhook.js'
import { StreamFollower } from '../../src/infra/nats/stream-follower.js'
import { eventSubjectParts, eventTypeSubjects, streamOf } from '../../src/infra/nats/subjects.js'

/** The ordered consumer each webhooks process holds on MATS_TASKS, as operators see it listed. */
export const DOORBELL_PREFIX = 'webhooks_fan_out_'

/**
 * Tells the fan-out which account has a new task event (ADR 0042): an ordered consumer on the
 * events webhooks are made of, headers only, from this process's start on. It reads nothing
 * but each event's subject (the account is in it), so a flood of one account's events costs
 * microseconds each here; the work of fanning them out is done in that account's lane. An
 * event stored before the consumer started is found by the lane reading from its cursor.
 */
export function fanOutDoorbell(ring: (accountId: string, seq: number) => void, log: Logger): StreamFollower {
  const subjects = {
    stream: streamOf('task'),
    filterSubjects: WEBHOOK_SOURCE_EVENTS.map(([category, type]) => eventTypeSubjects(category, type)),
    namePrefix: DOORBELL_PREFIX,
    headersOnly: true,
    name: 'webhooks fan-out',
  }
  return new StreamFollower(
    subjects,
    (msg) => {
      const { accountId } = eventSubjectParts(msg.subject)
      if (accountId) ring(accountId, msg.seq)
    },
    log,
  )
}
