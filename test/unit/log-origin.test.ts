/** Where the log has a delivered TaskCreated, read from the `Nats-Stream-Source` header nats-server writes. */
import { headers } from '@nats-io/transport-node'
import t from 'tap'
import { type Delivery, logOrigin } from '../../consumers/worker/delivered-task.js'
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'

const SUBJECT = 'mats.task.acc-1.task-1.TaskCreated'
const FILTER = 'mats.task.*.*.TaskCreated'
const TRANSFORM = 'mats-dispatch.{{wildcard(1)}}'

function aDispatchDelivery(source: string | null): Delivery {
  const h = headers()
  if (source !== null) h.set('Nats-Stream-Source', source)
  return { info: { stream: DISPATCH_STREAM }, seq: 9, subject: 'mats-dispatch.acc-1', headers: h }
}

t.test('given a message sourced by nats-server 2.10–2.14 (stream, seq, filter, transform, subject), when its origin is read, then it is the task stream’s message', async (t) => {
  t.same(logOrigin(aDispatchDelivery(`MATS_TASKS 42 ${FILTER} ${TRANSFORM} ${SUBJECT}`)), { stream: 'MATS_TASKS', seq: 42, subject: SUBJECT })
})

t.test('given a message sourced by nats-server 2.15+ (the source’s identity after the subject), when its origin is read, then the subject is still the task’s, not the identity', async (t) => {
  t.same(logOrigin(aDispatchDelivery(`MATS_TASKS 42 ${FILTER} ${TRANSFORM} ${SUBJECT} uWBq1Ne3`)), { stream: 'MATS_TASKS', seq: 42, subject: SUBJECT })
})

t.test('given a source whose stream name carries a suffix (an external or a consumer source), when its origin is read, then the stream is its name before the colon', async (t) => {
  t.same(logOrigin(aDispatchDelivery(`MATS_TASKS:4b1f9a0c 42 > > ${SUBJECT}`)), { stream: 'MATS_TASKS', seq: 42, subject: SUBJECT })
})

t.test('given a dispatch message published by hand (no header, or a header without a subject or sequence), when its origin is read, then there is none', async (t) => {
  t.equal(logOrigin(aDispatchDelivery(null)), null, 'no header')
  t.equal(logOrigin(aDispatchDelivery('MATS_TASKS 42')), null, 'no subject')
  t.equal(logOrigin(aDispatchDelivery(`MATS_TASKS x ${FILTER} ${TRANSFORM} ${SUBJECT}`)), null, 'no sequence')
})

t.test('given a message read from the task stream itself, when its origin is read, then it is that message', async (t) => {
  t.same(logOrigin({ info: { stream: 'MATS_TASKS' }, seq: 5, subject: SUBJECT, headers: undefined }), { stream: 'MATS_TASKS', seq: 5, subject: SUBJECT })
})
