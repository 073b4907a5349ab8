import t from 'tap'
import { TaskScheduler, type Waiting } from '../../consumers/worker/scheduler.js'
import type { Priority } from '../../src/domain/tasks/task.js'

let seq = 0
const task = (accountId: string, priority: Priority = 'normal'): Waiting<string> => ({ accountId, priority, seq: ++seq, item: `${accountId}#${seq}` })

function given(...waiting: Waiting<string>[]): TaskScheduler<string> {
  const scheduler = new TaskScheduler<string>()
  for (const entry of waiting) scheduler.add(entry)
  return scheduler
}

/** Starts and finishes tasks one at a time (one slot), returning the order they started in. */
function runOneAtATime(scheduler: TaskScheduler<string>, count: number): string[] {
  const order: string[] = []
  for (let i = 0; i < count; i++) {
    const next = scheduler.next()
    if (!next) break
    order.push(next.item)
    scheduler.finished(next.accountId)
  }
  return order
}

t.test('high starts before normal, normal before low, whatever the arrival order', async (t) => {
  const scheduler = given(task('a', 'low'), task('a', 'normal'), task('a', 'high'))
  t.same(
    runOneAtATime(scheduler, 3).map((item) => item.split('#')[1]),
    [String(seq), String(seq - 1), String(seq - 2)],
  )
})

t.test('within a priority and an account, arrival order', async (t) => {
  const first = task('a')
  const second = task('a')
  t.same(runOneAtATime(given(second, first), 2), [first.item, second.item])
})

t.test('a flooding account does not starve another: accounts take turns', async (t) => {
  const flood = Array.from({ length: 30 }, () => task('flood'))
  const late = task('quiet')
  const scheduler = given(...flood, late)
  const order = runOneAtATime(scheduler, 4)
  t.ok(order.slice(0, 2).includes(late.item), `the quiet account starts within two turns: ${order.join(', ')}`)
})

t.test('the account with fewer tasks running here goes first', async (t) => {
  const scheduler = given(task('busy'), task('busy'), task('idle'))
  const first = scheduler.next()
  t.equal(first?.accountId, 'busy')
  t.equal(scheduler.next()?.accountId, 'idle', 'busy already runs one, idle runs none')
})

t.test('priority outranks fairness', async (t) => {
  const scheduler = given(task('quiet', 'normal'), task('flood', 'high'))
  t.equal(scheduler.next()?.accountId, 'flood')
})

t.test('drain empties the queue and returns what waited', async (t) => {
  const scheduler = given(task('a'), task('b'))
  t.equal(scheduler.drain().length, 2)
  t.equal(scheduler.size, 0)
  t.equal(scheduler.next(), undefined)
})

t.test('waitingOf counts an account’s tasks held and not started, through next and drain', async (t) => {
  const scheduler = given(task('flood'), task('flood'), task('single'))
  t.equal(scheduler.waitingOf('flood'), 2)
  t.equal(scheduler.waitingOf('single'), 1)
  scheduler.next()
  t.equal(scheduler.waitingOf('flood') + scheduler.waitingOf('single'), 2, 'the one started is no longer held')
  scheduler.drain()
  t.equal(scheduler.waitingOf('flood'), 0)
  t.equal(scheduler.waitingOf('nobody'), 0)
})
