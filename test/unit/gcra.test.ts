import t from 'tap'
import { decide, type RatePolicy } from '../../src/domain/rate-limits/gcra.js'

const perMinute = (limit: number): RatePolicy => ({ name: 'test', limit, windowMs: 60_000 })

/** Sends `count` requests at time `at`, threading the stored TAT; returns how many were admitted. */
function burst(policy: RatePolicy, tat: number | null, at: number, count: number) {
  let admitted = 0
  let last = decide(policy, tat, at)
  for (let i = 0; i < count; i++) {
    last = decide(policy, tat, at)
    if (last.allowed) {
      admitted++
      tat = last.tat
    }
  }
  return { admitted, tat, last }
}

t.test('from rest, a burst of exactly the per-minute figure is admitted', async (t) => {
  const { admitted, last } = burst(perMinute(20), null, 1_000_000, 25)
  t.equal(admitted, 20)
  t.equal(last.allowed, false)
})

t.test('a refused request is told to retry exactly when one token has refilled', async (t) => {
  const policy = perMinute(20)
  const { tat, last } = burst(policy, null, 0, 21)
  t.equal(last.allowed, false)
  if (last.allowed) return
  t.equal(last.retryAfterMs, 3000, 'one token every 60 s / 20 = 3 s')
  t.equal(decide(policy, tat, last.retryAfterMs - 1).allowed, false, 'a millisecond early is still refused')
  t.equal(decide(policy, tat, last.retryAfterMs).allowed, true, 'at retry-after it is admitted')
})

t.test('tokens refill continuously: after 30 s at 120/min, 60 more are admitted', async (t) => {
  const policy = perMinute(120)
  const first = burst(policy, null, 0, 120)
  t.equal(first.admitted, 120)
  t.equal(burst(policy, first.tat, 30_000, 100).admitted, 60)
})

t.test('remaining counts down through a burst and reset is when the quota is whole again', async (t) => {
  const policy = perMinute(3)
  const a = decide(policy, null, 0)
  t.match(a, { allowed: true, remaining: 2, resetMs: 20_000 })
  const b = decide(policy, a.allowed ? a.tat : null, 0)
  t.match(b, { allowed: true, remaining: 1, resetMs: 40_000 })
})
