import type { JsMsg } from '@nats-io/jetstream'
import t from 'tap'
import { batchesOf } from '../../projections/engine/batches.js'

/** Messages as a consumer delivers them: `pending` is what the stream still holds after each. */
function source(pendings: readonly number[], gapMs = 0): AsyncIterable<JsMsg> & { ended: () => boolean } {
  let ended = false
  return {
    ended: () => ended,
    [Symbol.asyncIterator]() {
      let i = 0
      return {
        async next() {
          if (i >= pendings.length) return new Promise<IteratorResult<JsMsg>>(() => undefined) // a live consumer waits
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs))
          const seq = ++i
          return { done: false, value: { seq, info: { pending: pendings[seq - 1] } } as unknown as JsMsg }
        },
        async return() {
          ended = true
          return { done: true, value: undefined }
        },
      }
    },
  }
}

const seqs = (batch: JsMsg[]) => batch.map((m) => m.seq)

t.test('given a backlog, when batched, then batches end when full or when nothing more is pending', async (t) => {
  const got: number[][] = []
  for await (const batch of batchesOf(source([4, 3, 2, 1, 0]), 2, 0)) {
    got.push(seqs(batch))
    if (got.length === 3) break
  }
  t.same(got, [[1, 2], [3, 4], [5]])
})

t.test('given a linger, when the stream is caught up, then the batch waits that long for more before it ends', async (t) => {
  const started = Date.now()
  const got: number[][] = []
  // Three events 10 ms apart, each the last one stored when it arrives: one batch, not three.
  for await (const batch of batchesOf(source([0, 0, 0], 10), 100, 60)) {
    got.push(seqs(batch))
    break
  }
  t.same(got, [[1, 2, 3]])
  t.ok(Date.now() - started >= 60, 'the batch ended once the linger had passed')
})

t.test('given a consumer that stops reading, then the source iterator is ended too (a nats.js close() waits for it)', async (t) => {
  const messages = source([1, 0])
  for await (const _batch of batchesOf(messages, 10, 0)) break
  t.ok(messages.ended())
})
