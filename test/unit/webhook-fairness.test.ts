import t from 'tap'
import { admit, afterAttempt, HEALTHY, isPaused, headsOfQueues, release, type Lease } from '../../src/domain/webhooks/fairness.js'

const NOW = 1_000_000
const lease = (id: string, webhookId: string, sinceAgoMs = 10, untilInMs = 10_000): Lease => ({ id, webhookId, since: NOW - sinceAgoMs, until: NOW + untilInMs })
const caps = { perAccount: 3, perWebhook: 2 }

t.test('an attempt is admitted under both caps; refused at either, with a wait that follows how long the blocking attempts have lasted', async (t) => {
  // Given / When / Then
  const first = admit([], lease('a', 'w1'), caps, NOW)
  t.ok(first.admitted)
  t.same(first.admitted && first.leases.map((l) => l.id), ['a'])
  t.notOk(admit([lease('a', 'w1'), lease('b', 'w1')], lease('c', 'w1'), caps, NOW).admitted, 'the webhook cap: 2')
  t.ok(admit([lease('a', 'w1'), lease('b', 'w1')], lease('c', 'w2'), caps, NOW).admitted, 'another webhook of the account still has room')
  t.notOk(admit([lease('a', 'w1'), lease('b', 'w2'), lease('c', 'w3')], lease('d', 'w4'), caps, NOW).admitted, 'the account cap: 3')

  const prompt = admit([lease('a', 'w1', 5), lease('b', 'w1', 8)], lease('c', 'w1'), caps, NOW)
  t.same(prompt, { admitted: false, retryInMs: 25, blockedBy: 'webhook' }, 'attempts just started: ask again in 25 ms')
  const slow = admit([lease('a', 'w1', 3000), lease('b', 'w1', 4000)], lease('c', 'w1'), caps, NOW)
  t.same(slow, { admitted: false, retryInMs: 3000, blockedBy: 'webhook' }, 'attempts lasting seconds: ask again about as much later')
  const endingSoon = admit([lease('a', 'w1', 3000, 100), lease('b', 'w1', 4000)], lease('c', 'w1'), caps, NOW)
  t.same(endingSoon, { admitted: false, retryInMs: 100, blockedBy: 'webhook' }, 'never past the moment a lease stops counting')
})

t.test("leases past their `until` (their process died mid-attempt) no longer count, and releasing drops one's own", async (t) => {
  const expired = lease('dead', 'w1', 20_000, -1)
  const admitted = admit([expired, lease('b', 'w1')], lease('c', 'w1'), caps, NOW)
  t.same(admitted.admitted && admitted.leases.map((l) => l.id), ['b', 'c'])
  t.same(
    release([lease('a', 'w1'), lease('b', 'w2'), expired], 'a', NOW).map((l) => l.id),
    ['b'],
  )
})

t.test('timeouts in a row pause an endpoint, each pause in a row twice as long up to the cap; any answer makes it healthy', async (t) => {
  const policy = { afterTimeouts: 3, firstPauseMs: 1000, maxPauseMs: 3000 }
  let health = HEALTHY
  for (let i = 0; i < 2; i++) health = afterAttempt(health, true, policy, NOW)
  t.same(health, { timeouts: 2, pausedUntil: null, pauses: 0 }, 'two timeouts: not yet')
  health = afterAttempt(health, true, policy, NOW)
  t.same(health, { timeouts: 3, pausedUntil: NOW + 1000, pauses: 1 }, 'the third pauses it')
  t.ok(isPaused(health, NOW + 999))
  t.notOk(isPaused(health, NOW + 1000), 'the pause ends on its own')
  health = afterAttempt(health, true, policy, NOW + 1000)
  t.same(health.pausedUntil, NOW + 3000, 'the probe after the pause timed out too: paused again, twice as long')
  health = afterAttempt(health, true, policy, NOW + 3000)
  t.same(health.pausedUntil, NOW + 6000, 'capped at 3 s')
  t.same(afterAttempt(health, false, policy, NOW), HEALTHY, 'an answer, even a 500, resets it')
})

t.test("a lease claims its job's queue: a second attempt of one (webhook, task) is refused across processes, other tasks of the webhook are not", async (t) => {
  // Given an attempt in flight on task 1's queue
  const claimed = { ...lease('a', 'w1'), subject: 'job.acc.w1.task1' }

  // When / Then
  t.same(admit([claimed], { ...lease('b', 'w1'), subject: 'job.acc.w1.task1' }, caps, NOW), { admitted: false, retryInMs: 25, blockedBy: 'queue' }, 'the same queue: refused')
  t.ok(admit([claimed], { ...lease('b', 'w1'), subject: 'job.acc.w1.task2' }, caps, NOW).admitted, 'another task of the webhook: admitted')
  t.ok(admit([{ ...claimed, until: NOW - 1 }], { ...lease('b', 'w1'), subject: 'job.acc.w1.task1' }, caps, NOW).admitted, 'a claim past its until (its process died) no longer holds')
})

t.test('the head of each queue is its oldest job; later jobs of a queue wait behind it', async (t) => {
  const jobs = [
    { seq: 3, subject: 'q1' },
    { seq: 5, subject: 'q2' },
    { seq: 7, subject: 'q1' },
    { seq: 9, subject: 'q3' },
  ]
  t.same(
    headsOfQueues(jobs).map((job) => job.seq),
    [3, 5, 9],
  )
  const seen = new Set<string>()
  headsOfQueues(jobs.slice(0, 2), seen)
  t.same(
    headsOfQueues(jobs.slice(2), seen).map((job) => job.seq),
    [9],
    'on a later page, a queue whose head came on an earlier page has none',
  )
})
