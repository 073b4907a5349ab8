import t from 'tap'
import type { Test } from 'tap'
import { GroupedTickAppends } from '../../consumers/schedules/grouped-tick-appends.js'
import { operator } from '../../src/commands/execute.js'
import { fireTick, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { tickAppends, type TickAppends } from '../../src/commands/schedules/tick-batch.js'
import { firedOf, scheduleEvents } from '../helpers/schedules.js'
import { counting, fireTogether, schedulesOfOneAccount, type PairAppends } from '../helpers/ticks-by-hand.js'
import { until } from '../helpers/wait.js'

/** The event store's tick appends, the first atomic batch held until `release`: the one slot stays busy meanwhile. */
function firstHeld(events: PairAppends): TickAppends & { release: () => void; readonly held: boolean } {
  const appends = tickAppends(events)
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let first = true
  let held = false
  return {
    together: async (pairs) => {
      if (first) {
        first = false
        held = true
        await gate
      }
      return appends.together(pairs)
    },
    alone: (pair) => appends.alone(pair),
    release: () => release(),
    get held() {
      return held
    },
  }
}

/** Three batches of two ticks through one slot: the first holds it; the two others come while it is busy. */
async function threeBatchesThroughOneSlot(t: Test) {
  const setup = await schedulesOfOneAccount(t, 6)
  const events = counting(setup.service.infra.events)
  const held = firstHeld(events)
  const grouped = new GroupedTickAppends(held, 1)
  const [a, b, c, d, e, f] = setup.known
  if (!a || !b || !c || !d || !e || !f) throw new Error('six schedules expected')
  return {
    ...setup,
    events,
    held,
    grouped,
    batches: [
      [a, b],
      [c, d],
      [e, f],
    ] as const,
  }
}

t.test('given the only slot busy, when two batches of ticks come, then they go together in the next atomic batch and each schedule learns its own ScheduleFired', async (t) => {
  const { service, caller, tick, context, events, held, grouped, batches } = await threeBatchesThroughOneSlot(t)
  const first = fireTogether(context, grouped, batches[0], tick)
  await until('the first batch holds the slot', () => held.held)
  const later = [fireTogether(context, grouped, batches[1], tick), fireTogether(context, grouped, batches[2], tick)]
  // Their checks end before the slot frees: both wait in line.
  await until('the two batches wait', () => grouped.waiting === 2)

  held.release()
  const after = (await Promise.all([first, ...later])).flat()

  t.same(events.calls, { pairs: [2, 4], alone: 0 }, 'the first batch, then the two waiting as one')
  for (const schedule of after) {
    const fired = firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.key.aggregateId))
    t.equal(fired.length, 1, 'fired once')
    t.equal(schedule.version, fired[0]?.seq, 'known at its own ScheduleFired')
  }
})

t.test(
  "given two waiting batches merged, one holding a tick another scheduler already stored, when the merged batch is refused, then each batch goes again on its own: the other's ticks stored, the stale one's alone, refused by its guard",
  async (t) => {
    const { service, caller, tick, context, events, held, grouped, batches } = await threeBatchesThroughOneSlot(t)
    const stale = batches[2][1]
    await fireTick(context, stale, tick, operator())
    const attempts: string[] = []
    const watched = {
      ...context,
      onAttempt: (outcome: 'stored' | 'refused', schedule: KnownSchedule) => attempts.push(`${schedule.key.aggregateId === stale.key.aggregateId ? 'stale' : 'fresh'} ${outcome}`),
    }
    const first = fireTogether(watched, grouped, batches[0], tick)
    await until('the first batch holds the slot', () => held.held)
    const later = [fireTogether(watched, grouped, batches[1], tick), fireTogether(watched, grouped, batches[2], tick)]
    await until('the two batches wait', () => grouped.waiting === 2)

    held.release()
    await Promise.all([first, ...later])

    t.same(events.calls, { pairs: [2, 4, 2, 2], alone: 2 }, 'the merged batch refused, then each on its own, then the stale batch pair by pair')
    t.same(attempts.sort(), [...Array(5).fill('fresh stored'), 'stale refused'])
    for (const schedule of batches.flat()) {
      const fired = firedOf(await scheduleEvents(service.infra, caller.account.id, schedule.key.aggregateId))
      t.equal(fired.length, 1, 'each tick stored once')
    }
  },
)
