import t from 'tap'
import { FilteredPosition } from '../../projections/engine/filtered-position.js'

/** A stream as the view's question sees it: the sequences of the messages on the view's subjects. */
function aStream(onSubjects: number[]) {
  const asked: number[] = []
  const next = async (after: number) => {
    asked.push(after)
    return onSubjects.find((seq) => seq > after) ?? Number.POSITIVE_INFINITY
  }
  return { asked, next }
}

/** A wait, and what it ended with so far (null: still waiting). */
function waiting(position: FilteredPosition, fence: number, timeoutMs = 60_000) {
  const state: { reached: boolean | null; ended: Promise<boolean> } = { reached: null, ended: position.wait(fence, timeoutMs) }
  void state.ended.then((reached) => {
    state.reached = reached
  })
  return state
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Waits until `condition` holds, checking each millisecond, for at most `deadlineMs`. */
async function until(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time')
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

t.test('given a view that read message 5, when a check waits for 5 or less, then it is reached without asking the stream', async (t) => {
  const stream = aStream([5])
  const position = new FilteredPosition(stream.next, undefined, 0)
  position.read(5)

  t.equal(await position.wait(5, 60_000), true)
  t.equal(await position.wait(3, 60_000), true)
  t.same(stream.asked, [], 'no question asked')
})

t.test("given a fence on another subject's message after the last one the view read, when it waits, then the stream is asked once and the wait is reached", async (t) => {
  // 5 is the view's; 6 and 7 (TaskStarted, say) are not, and are never delivered to it.
  const stream = aStream([5])
  const position = new FilteredPosition(stream.next, undefined, 0)
  position.read(5)

  t.equal(await position.wait(7, 60_000), true)
  t.same(stream.asked, [5], 'asked for what follows 5')
  t.equal(position.reached(7), true, 'and the fence counts as read for later checks')
})

t.test('given a message of the view stored before the fence but not read yet, when it waits, then it is reached only once that message is read', async (t) => {
  const stream = aStream([5, 6, 9])
  const position = new FilteredPosition(stream.next, undefined, 0)
  position.read(5)

  const wait = waiting(position, 8)
  await until(() => stream.asked.length === 1)
  await settle()
  t.equal(wait.reached, null, 'message 6 is still to be read')
  position.read(6)
  t.equal(await wait.ended, true, 'nothing of the view between 6 and 9: reached once 6 is read')
  t.same(stream.asked, [5, 6], 'asked again after reading what the first answer named')
  t.equal(position.reached(8), true)
  t.equal(position.reached(9), false, '9 is the next one to read')
})

t.test('given an answer naming a message the view does not read (its consumer stalled), then the stream is not asked again until the view reads', async (t) => {
  const stream = aStream([5, 6])
  const position = new FilteredPosition(stream.next, undefined, 0)
  position.read(5)

  t.equal(await position.wait(8, 100), false, 'not reached: 6 was never read')
  t.same(stream.asked, [5], 'one question, not one every idle moment')
})

t.test('given waits that begin while the stream is being asked, then the answer reaches only the fences it covers', async (t) => {
  const stream = aStream([5, 8])
  let answerFirst: (() => void) | undefined
  const position = new FilteredPosition(
    async (after) => {
      if (!answerFirst) await new Promise<void>((resolve) => (answerFirst = resolve))
      return stream.next(after)
    },
    undefined,
    0,
  )
  position.read(5)
  const first = waiting(position, 6)
  await until(() => answerFirst !== undefined)
  const second = waiting(position, 9)
  answerFirst?.() // nothing of the view in 6..7; its message at 8 lies before the second's fence

  t.equal(await first.ended, true, 'the first: its fence lies before 8')
  await settle()
  t.equal(second.reached, null, 'the second: 8 is still to be read')
  position.read(8)
  t.equal(await second.ended, true, 'after 8 is read, asked again: nothing more up to 9')
  t.same(stream.asked, [5, 8], 'one question under way at a time, each from what was read')
})

t.test('given a wait that begins while the stream is asked, when the answer is that nothing follows, then only the fences taken before the question count as read', async (t) => {
  let answerFirst: (() => void) | undefined
  let asked = 0
  const position = new FilteredPosition(
    async () => {
      asked++
      if (!answerFirst) await new Promise<void>((resolve) => (answerFirst = resolve))
      return Number.POSITIVE_INFINITY
    },
    undefined,
    0,
  )
  position.read(5)
  const first = waiting(position, 6)
  await until(() => answerFirst !== undefined)
  const second = waiting(position, 9) // its fence taken after the question: 8 may be the view's, stored since
  answerFirst?.()

  t.equal(await first.ended, true)
  t.equal(position.reached(9), false, 'the answer said nothing of 7..9')
  t.equal(await second.ended, true, 'a second question answers it')
  t.equal(asked, 2)
})

t.test('given a wait, when the view starts over from the stream end, then the wait ends unreached and nothing read before counts', async (t) => {
  const position = new FilteredPosition(async () => new Promise<number>(() => undefined), undefined, 0)
  position.read(5)
  const waited = position.wait(9, 60_000)
  position.abandon()

  t.equal(await waited, false)
  t.equal(position.reached(5), false)
})

t.test('given a question under way, when the view starts over, then its answer moves nothing', async (t) => {
  let answer: ((seq: number) => void) | undefined
  const position = new FilteredPosition(() => new Promise<number>((resolve) => (answer = resolve)), undefined, 0)
  position.read(5)
  const waited = position.wait(9, 60_000)
  await until(() => answer !== undefined)
  position.abandon()
  answer?.(Number.POSITIVE_INFINITY)
  await settle()

  t.equal(await waited, false)
  t.equal(position.reached(1), false, 'an answer about the old reading is not taken for the new one')
})

t.test('given a stream that does not answer, when the time is up, then the wait ends unreached, asked again only after a pause, and each failure told', async (t) => {
  const failures: unknown[] = []
  const position = new FilteredPosition(
    async () => {
      throw new Error('timeout')
    },
    (err) => failures.push(err),
    0,
  )

  t.equal(await position.wait(3, 250), false)
  t.ok(failures.length >= 1 && failures.length <= 4, `asked ${failures.length} times in 250 ms, 100 ms apart, not in a loop`)
})
