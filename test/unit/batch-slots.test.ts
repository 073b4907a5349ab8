import t from 'tap'
import { BatchSlots } from '../../src/infra/nats/batch-slots.js'

/** A piece of work that ends when the test says so. */
function gate(): { readonly promise: Promise<void>; open: () => void } {
  let open = (): void => undefined
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

const FAR = () => Date.now() + 60_000

t.test('given more holders than slots, then no more than the slots run at once on a stream, and every one runs', async (t) => {
  const slots = new BatchSlots(4)
  let running = 0
  let most = 0
  const done = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      slots.hold('S', FAR(), async () => {
        most = Math.max(most, ++running)
        await new Promise((resolve) => setImmediate(resolve))
        running--
        return i
      }),
    ),
  )
  t.equal(most, 4)
  t.same(
    done,
    Array.from({ length: 200 }, (_, i) => i),
  )
  t.equal(slots.taken('S'), 0, 'every slot given back')
})

t.test('given one stream full, then another stream still has its own slots', async (t) => {
  const slots = new BatchSlots(1)
  const held = gate()
  const first = slots.hold('A', FAR(), () => held.promise)
  t.equal(await slots.hold('B', FAR(), async () => 'ran'), 'ran')
  held.open()
  await first
})

t.test('given every slot held, then waiters are served in the order they came, as slots are given back', async (t) => {
  const slots = new BatchSlots(1)
  const held = gate()
  const order: number[] = []
  const first = slots.hold('S', FAR(), () => held.promise)
  const waiters = [1, 2, 3].map((n) => slots.hold('S', FAR(), async () => void order.push(n)))
  held.open()
  await Promise.all([first, ...waiters])
  t.same(order, [1, 2, 3])
})

t.test('given every slot held past the deadline, then the waiter fails without running, and the slot count is unharmed', async (t) => {
  const slots = new BatchSlots(1)
  const held = gate()
  const first = slots.hold('S', FAR(), () => held.promise)
  let ran = false
  await t.rejects(
    slots.hold('S', Date.now() + 20, async () => {
      ran = true
    }),
    /no atomic batch slot free on S in time/,
  )
  t.notOk(ran)
  held.open()
  await first
  t.equal(slots.taken('S'), 0)
  t.equal(await slots.hold('S', FAR(), async () => 'next'), 'next', 'the next holder gets the slot at once')
})

t.test('a failing holder gives its slot back', async (t) => {
  const slots = new BatchSlots(1)
  await t.rejects(
    slots.hold('S', FAR(), async () => {
      throw new Error('refused')
    }),
    /refused/,
  )
  t.equal(slots.taken('S'), 0)
})

t.test('slots per stream must be a positive integer', async (t) => {
  t.throws(() => new BatchSlots(0), RangeError)
  t.throws(() => new BatchSlots(1.5), RangeError)
})

t.test('given an observer, then it hears each slot taken, how long the waiters waited, and a wait past the deadline', async (t) => {
  const heard: string[] = []
  const waits: number[] = []
  const slots = new BatchSlots(1, {
    slotTaken: (stream, seconds, queued) => {
      heard.push(`${stream} ${queued ? 'after waiting' : 'at once'}`)
      waits.push(seconds)
    },
    slotTimedOut: (stream) => heard.push(`${stream} timed out`),
  })
  const held = gate()
  const first = slots.hold('S', FAR(), () => held.promise)
  const waiter = slots.hold('S', FAR(), async () => 'ran')
  const late = slots.hold('S', Date.now() + 20, async () => 'never')
  await t.rejects(late)
  await new Promise((resolve) => setTimeout(resolve, 30))
  held.open()
  await Promise.all([first, waiter])
  t.same(heard, ['S at once', 'S timed out', 'S after waiting'])
  t.equal(waits[0], 0, 'a free slot is a wait of 0')
  t.ok((waits[1] ?? 0) >= 0.04, `the waiter's wait is measured (${waits[1]} s)`)
})
