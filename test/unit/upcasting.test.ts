import t from 'tap'
import { Type } from 'typebox'
import type { EventRegistry } from '../../src/domain/events/registry.js'
import { decodeEvent, tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'

// A test-only event type at version 3: v1 had `name` only, v2 added `language`, v3 split `name`.
const registry: EventRegistry = {
  Greeted: {
    category: 'task',
    current: 3,
    schema: Type.Object({ firstName: Type.String(), lastName: Type.String(), language: Type.Enum(['en', 'fr']) }),
    upcast: {
      1: (data) => ({ ...data, language: 'en' }),
      2: ({ name, ...rest }) => {
        const [firstName = '', ...others] = String(name).split(' ')
        return { ...rest, firstName, lastName: others.join(' ') }
      },
    },
  },
}

const SUBJECT = 'mats.task.acc-1.task-1.Greeted'
const stored = (version: number, data: Record<string, unknown>) => {
  const envelope = {
    id: 'e-1',
    type: 'Greeted',
    version,
    occurredAt: '2026-11-24T00:00:00.000Z',
    accountId: 'acc-1',
    aggregateId: 'task-1',
    data,
    metadata: { correlationId: 'c', causationId: null, keyId: null },
  }
  return { subject: SUBJECT, seq: 3, data: new TextEncoder().encode(JSON.stringify(envelope)) }
}

t.test('given a version-1 event in the log, when it is replayed, then each upcaster brings it to the current version before it is checked', async (t) => {
  const event = decodeEvent(stored(1, { name: 'Ada Lovelace' }), registry)
  t.equal(event.version, 3)
  t.same(event.data, { language: 'en', firstName: 'Ada', lastName: 'Lovelace' })
})

t.test('given a version-2 event, when it is replayed, then only the upcasters from v2 apply', async (t) => {
  const event = decodeEvent(stored(2, { name: 'Grace Hopper', language: 'fr' }), registry)
  t.same(event.data, { language: 'fr', firstName: 'Grace', lastName: 'Hopper' })
})

t.test('given an event of the current version, then it is checked as it is', async (t) => {
  const data = { firstName: 'Alan', lastName: 'Turing', language: 'en' }
  t.same(decodeEvent(stored(3, data), registry).data, data)
})

t.test('given an old event that is still wrong once upcast, then it is not an event, naming the current version and the field', async (t) => {
  const result = tryDecodeEvent(stored(2, { name: 'Edsger Dijkstra', language: 'nl' }), registry)
  t.ok(result instanceof UndecodableMessageError)
  if (result instanceof UndecodableMessageError) t.match(result.reason, /^not a valid Greeted v3: language: /)
})

t.test('given a version with no upcaster on the way, then it is not an event', async (t) => {
  const gap: EventRegistry = { Greeted: { ...registry.Greeted!, upcast: { 1: registry.Greeted!.upcast[1]! } } }
  const result = tryDecodeEvent(stored(1, { name: 'Ada' }), gap)
  t.ok(result instanceof UndecodableMessageError)
  if (result instanceof UndecodableMessageError) t.equal(result.reason, 'no upcaster for Greeted v2 to v3')
})
