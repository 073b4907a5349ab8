import t from 'tap'
import { decodeEvent, tryDecodeEvent, UndecodableMessageError } from '../../src/infra/nats/decode.js'

const SUBJECT = 'mats.task.acc-1.task-1.TaskStarted'
const envelope = { id: 'e-1', type: 'TaskStarted', version: 1, occurredAt: '2026-11-24T00:00:00.000Z', accountId: 'acc-1', aggregateId: 'task-1', data: { workerId: 'w' }, metadata: { correlationId: 'c', causationId: null, keyId: null } }
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
