import t from 'tap'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Inbox, InboxOverflowError } from '../../src/queries/inbox.js'

const anEvent = (seq: number) => ({ seq, type: 'TaskStarted' }) as RecordedEvent

async function take(inbox: Inbox, count: number, signal = new AbortController().signal): Promise<number[]> {
  const seqs: number[] = []
  for await (const event of inbox.events(signal)) {
    seqs.push(event.seq)
    if (seqs.length === count) break
  }
  return seqs
}

t.test('given events pushed before and while a reader waits, then it gets them all in order', async (t) => {
  const inbox = new Inbox(10)
  inbox.push(anEvent(1))
  const read = take(inbox, 3)
  inbox.push(anEvent(2))
  setImmediate(() => inbox.push(anEvent(3)))
  t.same(await read, [1, 2, 3])
})

t.test('given a reader that falls more than the limit behind, then it gets what was queued, then an overflow error; later pushes are dropped', async (t) => {
  const inbox = new Inbox(2)
  for (const seq of [1, 2, 3, 4]) inbox.push(anEvent(seq))
  const seqs: number[] = []
  await t.rejects(
    (async () => {
      for await (const event of inbox.events(new AbortController().signal)) seqs.push(event.seq)
    })(),
    InboxOverflowError,
  )
  t.same(seqs, [1, 2], 'the queued ones, then the end')
})

t.test('given a waiting reader, when its signal aborts, then the reading ends without an error', async (t) => {
  const inbox = new Inbox(2)
  const abort = new AbortController()
  const read = take(inbox, 5, abort.signal)
  setImmediate(() => abort.abort())
  t.same(await read, [])
})
