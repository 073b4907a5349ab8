import t from 'tap'
import { UndecodableMessageError } from '../../src/infra/nats/decode.js'
import { DecodedEvents } from '../../src/infra/nats/decoded-events.js'

const SUBJECT = 'mats.task.acc-1.task-1.TaskStarted'
const envelope = (id: string, workerId = 'w') => ({
  id,
  type: 'TaskStarted',
  version: 1,
  occurredAt: '2026-11-24T00:00:00.000Z',
  accountId: 'acc-1',
  aggregateId: 'task-1',
  data: { workerId },
  metadata: { correlationId: 'c', causationId: null, keyId: null },
})
/** A stored message as a client delivers it: its bytes in a buffer of their own. */
const delivered = (seq: number, body: unknown, subject = SUBJECT) => ({ subject, seq, data: Buffer.from(JSON.stringify(body)) })
const ROOMY = 1024 * 1024

t.test('given a message decoded, when another delivery of it is decoded, then the event decoded first is given', async (t) => {
  const events = new DecodedEvents(ROOMY)
  const first = events.tryDecode(delivered(7, envelope('e-1')))

  const again = events.tryDecode(delivered(7, envelope('e-1')))

  t.notOk(first instanceof UndecodableMessageError)
  t.equal(again, first, 'the same object: not decoded again')
  t.same(again, { ...envelope('e-1'), seq: 7, subject: SUBJECT })
})

t.test('given a message decoded from a view of a larger buffer, when the buffer changes and the message is delivered again, then it is still known', async (t) => {
  const events = new DecodedEvents(ROOMY)
  const body = JSON.stringify(envelope('e-1'))
  const readBuffer = Buffer.alloc(body.length + 16)
  readBuffer.write(body, 8)
  const first = events.tryDecode({ subject: SUBJECT, seq: 7, data: readBuffer.subarray(8, 8 + body.length) })
  readBuffer.fill(0x20)

  const again = events.tryDecode(delivered(7, envelope('e-1')))

  t.equal(again, first)
  t.equal(events.held.bytes, body.length, 'holds the message, not the buffer it came in')
})

t.test('given a message decoded, when another message has its subject and sequence (a stream made again), then that one is decoded', async (t) => {
  const events = new DecodedEvents(ROOMY)
  events.tryDecode(delivered(7, envelope('e-1')))

  const other = events.tryDecode(delivered(7, envelope('e-2')))

  t.notOk(other instanceof UndecodableMessageError)
  if (!(other instanceof UndecodableMessageError)) t.equal(other.id, 'e-2')
  t.same(events.held.entries, 1, 'the other one replaced it')
})

t.test('given the same sequence on another subject, then it is another message', async (t) => {
  const events = new DecodedEvents(ROOMY)
  events.tryDecode(delivered(7, envelope('e-1')))
  const otherSubject = 'mats.task.acc-1.task-2.TaskStarted'

  const other = events.tryDecode(delivered(7, { ...envelope('e-2'), aggregateId: 'task-2' }, otherSubject))

  if (other instanceof UndecodableMessageError) t.fail(other.reason)
  else t.equal(other.aggregateId, 'task-2')
  t.equal(events.held.entries, 2)
})

t.test('given a reader that keeps nothing, then it uses what is kept and keeps nothing new', async (t) => {
  const events = new DecodedEvents(ROOMY)
  const kept = events.tryDecode(delivered(7, envelope('e-1')))

  const known = events.tryDecode(delivered(7, envelope('e-1')), { keep: false })
  const unknown = events.tryDecode(delivered(8, envelope('e-2')), { keep: false })
  const unknownAgain = events.tryDecode(delivered(8, envelope('e-2')), { keep: false })

  t.equal(known, kept)
  t.not(unknownAgain, unknown, 'decoded each time')
  t.equal(events.held.entries, 1)
})

t.test('given more than it may hold, then the least recently used message goes first', async (t) => {
  const size = delivered(1, envelope('e-1')).data.byteLength
  const events = new DecodedEvents(4 * size)
  const decoded = [1, 2, 3, 4].map((seq) => events.tryDecode(delivered(seq, envelope(`e-${seq}`))))
  events.tryDecode(delivered(1, envelope('e-1')))

  events.tryDecode(delivered(5, envelope('e-5')))

  t.equal(events.tryDecode(delivered(1, envelope('e-1'))), decoded[0], 'used last: kept')
  t.not(events.tryDecode(delivered(2, envelope('e-2'))), decoded[1], 'used least recently: gone')
  t.ok(events.held.bytes <= 4 * size, `holds ${events.held.bytes} of at most ${4 * size} bytes`)
})

t.test('given a message larger than a quarter of what it may hold, then it is decoded but not kept, and nothing is pushed out', async (t) => {
  const small = delivered(1, envelope('e-1'))
  const events = new DecodedEvents(4 * small.data.byteLength + 100)
  const kept = events.tryDecode(small)
  const large = delivered(2, envelope('e-2', 'w'.repeat(small.data.byteLength)))

  const first = events.tryDecode(large)
  const again = events.tryDecode(large)

  t.notOk(first instanceof UndecodableMessageError)
  t.not(again, first, 'decoded each time')
  t.equal(events.tryDecode(delivered(1, envelope('e-1'))), kept)
})

t.test('given a message that is not an event, then it is refused each time and not kept', async (t) => {
  const events = new DecodedEvents(ROOMY)

  const refused = events.tryDecode({ subject: SUBJECT, seq: 9, data: Buffer.from('not json') })

  t.ok(refused instanceof UndecodableMessageError)
  t.same(events.held, { entries: 0, bytes: 0 })
})
