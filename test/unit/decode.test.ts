import t from 'tap'
import { decodeEvent, tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'

const SUBJECT = 'mats.task.acc-1.task-1.TaskStarted'
const envelope = {
  id: 'e-1',
  type: 'TaskStarted',
  version: 1,
  occurredAt: '2026-11-24T00:00:00.000Z',
  accountId: 'acc-1',
  aggregateId: 'task-1',
  data: { workerId: 'w' },
  metadata: { correlationId: 'c', causationId: null, keyId: null },
}
const stored = (body: string, subject = SUBJECT) => ({ subject, seq: 7, data: new TextEncoder().encode(body) })

t.test('given a well-formed envelope on its own subject, then it decodes with its stream position', async (t) => {
  t.same(decodeEvent(stored(JSON.stringify(envelope))), { ...envelope, seq: 7, subject: SUBJECT })
})

t.test('given messages that are not events, then each is refused with the reason, naming the message', async (t) => {
  const cases: [string, string, string?][] = [
    ['{"type": "TaskStarted", not json', '^not JSON'],
    ['[1, 2]', '^not a JSON object$'],
    [JSON.stringify({ ...envelope, id: 3 }), '^id is not a string$'],
    [JSON.stringify({ ...envelope, data: null }), '^data is not an object$'],
    [JSON.stringify(envelope), "^type TaskStarted is not the subject's TaskCompleted$", 'mats.task.acc-1.task-1.TaskCompleted'],
    [JSON.stringify(envelope), "^accountId acc-1 is not the subject's acc-2$", 'mats.task.acc-2.task-1.TaskStarted'],
    [JSON.stringify(envelope), "^aggregateId task-1 is not the subject's task-2$", 'mats.task.acc-1.task-2.TaskStarted'],
    [JSON.stringify(envelope), "^type TaskStarted is not the subject's \\(none\\)$", 'mats.task.acc-1.task-1'],
    [JSON.stringify({ ...envelope, type: '' }), "^type  is not the subject's \\(none\\)$", 'mats.task.acc-1.task-1'],
  ]
  for (const [body, reason, subject] of cases) {
    const result = tryDecodeEvent(stored(body, subject))
    t.ok(result instanceof UndecodableMessageError, body)
    if (result instanceof UndecodableMessageError) {
      t.match(result.reason, new RegExp(reason))
      t.match(result.message, `message 7 on ${subject ?? SUBJECT} is not an event`)
    }
  }
})

const completedSubject = 'mats.task.acc-1.task-1.TaskCompleted'
const completedData = {
  result: '# Plan',
  usage: { provider: 'offline', model: 'mats-offline-1', inputTokens: 10, outputTokens: 20 },
  costMicros: 15,
  learnedFacts: [],
  billingMonth: '2026-11',
  reservedMicros: 10000,
}
const completed = (data: Record<string, unknown>, version = 1) => JSON.stringify({ ...envelope, type: 'TaskCompleted', version, data })

t.test('given a TaskCompleted from before learnedFacts existed, then it still decodes as v1, without the field', async (t) => {
  const { learnedFacts: _absent, ...older } = completedData
  const event = decodeEvent(stored(completed(older), completedSubject))
  t.equal(event.version, 1)
  t.same(event.data, older)
  t.notMatch(JSON.stringify(event.data), 'learnedFacts')
})

t.test('given a known event type whose data does not match its schema, then it is not an event, naming the type, version and field', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...completedData, costMicros: -1 }, '^not a valid TaskCompleted v1: costMicros: must be >= 0$'],
    [{ ...completedData, usage: { ...completedData.usage, inputTokens: 'many' } }, '^not a valid TaskCompleted v1: usage.inputTokens: must be integer$'],
    [{ ...completedData, result: undefined }, '^not a valid TaskCompleted v1: result: is required$'],
    [{ ...completedData, billingMonth: 'November' }, '^not a valid TaskCompleted v1: billingMonth: '],
  ]
  for (const [data, reason] of cases) {
    const result = tryDecodeEvent(stored(completed(data), completedSubject))
    t.ok(result instanceof UndecodableMessageError, JSON.stringify(data))
    if (result instanceof UndecodableMessageError) t.match(result.reason, new RegExp(reason))
  }
})

t.test('given an envelope whose version is missing, not an integer or newer than this process reads, then it is not an event', async (t) => {
  const cases: [string, string][] = [
    [JSON.stringify({ ...envelope, version: undefined }), '^version is not a positive integer$'],
    [JSON.stringify({ ...envelope, version: 1.5 }), '^version is not a positive integer$'],
    [JSON.stringify({ ...envelope, version: 2 }), '^version 2 is newer than this process reads \\(TaskStarted v1\\)$'],
  ]
  for (const [body, reason] of cases) {
    const result = tryDecodeEvent(stored(body))
    t.ok(result instanceof UndecodableMessageError, body)
    if (result instanceof UndecodableMessageError) t.match(result.reason, new RegExp(reason))
  }
})

t.test('given an event type the registry does not know, then it decodes unchecked: readers ignore types they do not know', async (t) => {
  const body = JSON.stringify({ ...envelope, type: 'TaskSnoozed', data: { until: 3 } })
  t.same(decodeEvent(stored(body, 'mats.task.acc-1.task-1.TaskSnoozed')).data, { until: 3 })
})
