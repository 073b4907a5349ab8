import type { StreamInfo } from '@nats-io/jetstream'
import t from 'tap'
import { FRESH_MEMORY, type StepDownLimits, stepDownDue, type WatchMemory } from '../../consumers/worker/dispatch-source-due.js'

/** ADR 0069's decision alone: when a worker asks the dispatch stream's leader to step down. */

const LIMITS: StepDownLimits = { silentMs: 5_000, leaderSettlesMs: 10_000, askEveryMs: 15_000 }
const WALL = Date.parse('2026-11-27T12:00:00Z')
const SEC = 1_000
const NANOS_PER_MS = 1_000_000

/** A replicated dispatch stream as read: its leader `n1` has led `ledForMs`, `n2` is current, its source last heard `activeMs` ago (-1: never). */
function aStream(
  options: { activeMs?: number; ledForMs?: number | null; leader?: string; currentReplica?: boolean; currentOffline?: boolean; source?: boolean } = {},
): Pick<StreamInfo, 'cluster' | 'sources'> {
  const { activeMs = 0, ledForMs = 60 * SEC, leader = 'n1', currentReplica = true, currentOffline = false, source = true } = options
  return {
    cluster: {
      leader,
      ...(ledForMs === null ? {} : { leader_since: new Date(WALL - ledForMs).toISOString() }),
      replicas: [
        { name: 'n2', current: currentReplica, active: 0, offline: currentOffline, lag: 0 },
        { name: 'n3', current: false, active: 0, offline: true, lag: 0 },
      ],
    },
    sources: source ? [{ name: 'MATS_TASKS', lag: 0, active: activeMs < 0 ? -1 : activeMs * NANOS_PER_MS }] : [],
  }
}

const at = (monotonicMs: number) => ({ monotonicMs, wallMs: WALL })

t.test('given a source heard within the threshold, when the watch reads, then no step-down is due', async (t) => {
  t.equal(stepDownDue(aStream({ activeMs: 4_999 }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false)
})

t.test('given a source silent past the threshold on a settled leader with a current replica, when the watch reads, then a step-down is due', async (t) => {
  t.equal(stepDownDue(aStream({ activeMs: 5_000 }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, true)
})

t.test('given a silent source, when its leader has led less than the settling time, then no step-down is due', async (t) => {
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, ledForMs: 9_999 }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false)
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, ledForMs: 10_000 }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, true)
})

t.test('given a silent source, when no other replica is current, or there is no source, or no leader, then no step-down is due', async (t) => {
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, currentReplica: false }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false, 'no current replica')
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, source: false }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false, 'no source')
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, leader: '' }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false, 'no leader')
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, currentOffline: true }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false, 'the current replica offline')
})

t.test('given a silent source, when the server does not say since when its leader leads, then it is taken as just elected: no step-down is due', async (t) => {
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC, ledForMs: null }), FRESH_MEMORY, at(100 * SEC), LIMITS).due, false)
})

t.test('given this worker asked recently, when the source is still silent, then it asks again only after askEveryMs', async (t) => {
  const asked: WatchMemory = { ...FRESH_MEMORY, askedAt: 100 * SEC }
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC }), asked, at(100 * SEC + 14_999), LIMITS).due, false)
  t.equal(stepDownDue(aStream({ activeMs: 60 * SEC }), asked, at(100 * SEC + 15_000), LIMITS).due, true)
})

t.test('given a leader whose source was never heard (-1), when the watch reads it again and again, then it is due once it has been seen so for the threshold', async (t) => {
  const first = stepDownDue(aStream({ activeMs: -1 }), FRESH_MEMORY, at(100 * SEC), LIMITS)
  t.equal(first.due, false, 'first seen unheard: silent for 0 ms here')
  t.same(first.memory.unheard, { leader: 'n1', since: 100 * SEC })
  const later = stepDownDue(aStream({ activeMs: -1 }), first.memory, at(104_999), LIMITS)
  t.equal(later.due, false, 'seen unheard for 4,999 ms')
  t.same(later.memory.unheard, { leader: 'n1', since: 100 * SEC }, 'still counted from when first seen')
  t.equal(stepDownDue(aStream({ activeMs: -1 }), later.memory, at(105_000), LIMITS).due, true, 'seen unheard for 5,000 ms')
})

t.test('given an unheard source, when another leader takes over still unheard, then its silence counts from when the new leader was seen', async (t) => {
  const unheard = stepDownDue(aStream({ activeMs: -1 }), FRESH_MEMORY, at(100 * SEC), LIMITS).memory
  const moved = stepDownDue(aStream({ activeMs: -1, leader: 'n2' }), unheard, at(120 * SEC), LIMITS)
  t.equal(moved.due, false, 'the new leader has just been seen unheard')
  t.same(moved.memory.unheard, { leader: 'n2', since: 120 * SEC })
})

t.test('given an unheard source, when it is heard again, then the memory of it is dropped', async (t) => {
  const unheard = stepDownDue(aStream({ activeMs: -1 }), FRESH_MEMORY, at(100 * SEC), LIMITS).memory
  const heard = stepDownDue(aStream({ activeMs: 200 }), unheard, at(110 * SEC), LIMITS)
  t.equal(heard.due, false)
  t.equal(heard.memory.unheard, null)
})
