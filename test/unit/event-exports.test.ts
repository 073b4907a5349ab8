import t from 'tap'
// Imported by the package's name, as a downstream TypeScript consumer does (package.json `exports`).
import { EVENT_REGISTRY, readEventData, type MatsEvent } from 'mats/events'

/** What a consumer writes: narrowing on `type` gives the event's data its type. */
function costOf(event: MatsEvent): number {
  switch (event.type) {
    case 'TaskCompleted':
    case 'TaskFailed':
      return event.data.costMicros
    default:
      return 0
  }
}

t.test('given the package export mats/events, then it gives the registry, the reader and the event types', async (t) => {
  t.equal(EVENT_REGISTRY.TaskCompleted?.current, 1)
  const data = { error: 'cancelled before it started', reason: 'cancelled', usage: null, costMicros: 0, billingMonth: '2026-11', reservedMicros: 10000 }
  t.same(readEventData('TaskFailed', 1, data), { version: 1, data })
  t.match(readEventData('TaskFailed', 1, { ...data, reason: 'bored' }), { problem: /^not a valid TaskFailed v1: reason: / })
  const event: MatsEvent = {
    type: 'AccountBudgetChanged',
    data: { monthlyBudgetMicros: 5 },
    id: 'e',
    version: 1,
    occurredAt: '',
    accountId: 'a',
    aggregateId: 'a',
    metadata: { correlationId: 'c', causationId: null, keyId: null },
    seq: 1,
    subject: 's',
  }
  t.equal(costOf(event), 0)
})
