import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { ApiClient } from '../helpers/http.js'
import { retryAfterMs } from '../helpers/retry-after.js'
import { openSse } from '../helpers/sse.js'

type Answer = (res: ServerResponse) => void

/** A real HTTP server on loopback answering its requests with `answers` in turn (the last one again past the end); it counts them. */
async function aServer(t: Test, answers: Answer[]): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const server = createServer((_req, res) => {
    const answer = answers[Math.min(requests, answers.length - 1)]
    requests++
    answer?.(res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests }
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (res) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
const unavailable = (retryAfter?: string) => json(503, { error: 'service temporarily unavailable, retry later', code: 'unavailable' }, retryAfter === undefined ? {} : { 'retry-after': retryAfter })
const ok = json(200, { ok: true })
const stream: Answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: 1\nevent: TaskCreated\ndata: {}\n\n')

t.test('given a 503 with Retry-After: 1, when the API client sends a request, then it waits a second and its second try is the answer', async (t) => {
  const server = await aServer(t, [unavailable('1'), ok])
  const sentAt = Date.now()
  const answer = await new ApiClient(server.url, 'mats_key').post('/v1/sessions', { name: 'x' })
  t.equal(answer.status, 200)
  t.equal(server.requests(), 2, 'sent twice')
  t.ok(Date.now() - sentAt >= 1000, `waited what Retry-After asked (${Date.now() - sentAt} ms)`)
})

t.test('given a 503 without Retry-After, a 429 with one, or a 500, then the answer goes to the test as it came, sent once', async (t) => {
  for (const [what, answer, status] of [
    ['503 without Retry-After', unavailable(), 503],
    ['429 with Retry-After', json(429, { error: 'slow down', code: 'rate_limited' }, { 'retry-after': '1' }), 429],
    ['500', json(500, { error: 'internal error', code: 'internal_error' }), 500],
  ] as const) {
    const server = await aServer(t, [answer, ok])
    t.equal((await new ApiClient(server.url).get('/v1/tasks')).status, status, what)
    t.equal(server.requests(), 1, `${what}: sent once`)
  }
})

t.test('given 503s that go on past the budget, then the last 503 goes to the test, with its Retry-After', async (t) => {
  const server = await aServer(t, [unavailable('1')])
  const answer = await new ApiClient(server.url, null, 2500).get('/v1/tasks')
  t.equal(answer.status, 503)
  t.equal(answer.headers.get('retry-after'), '1')
  t.equal(server.requests(), 3, 'sent at 0, 1 and 2 s; a fourth wait would end past 2.5 s')
})

t.test('given withoutRetry, then a 503 with Retry-After is the answer at once', async (t) => {
  const server = await aServer(t, [unavailable('1'), ok])
  const answer = await new ApiClient(server.url).withoutRetry().get('/readyz')
  t.equal(answer.status, 503)
  t.equal(server.requests(), 1)
})

t.test('given a 503 with Retry-After when an event stream is opened, then it is opened again and streams', async (t) => {
  const server = await aServer(t, [unavailable('1'), stream])
  const events = await openSse(`${server.url}/v1/tasks/x/events`, 'mats_key')
  t.equal(events.status, 200)
  t.same(await events.rest(), [{ id: '1', event: 'TaskCreated', data: '{}' }])
  t.equal(server.requests(), 2)
  const once = await aServer(t, [unavailable('1'), stream])
  t.equal((await openSse(`${once.url}/v1/tasks/x/events`, 'mats_key', {}, 0)).status, 503, 'a budget of 0 answers the 503 as it comes')
})

t.test('Retry-After is read as seconds or as an HTTP-date', async (t) => {
  const now = Date.parse('2026-11-26T00:00:00Z')
  t.equal(retryAfterMs('2', now), 2000)
  t.equal(retryAfterMs(' 0 ', now), 0)
  t.equal(retryAfterMs('Thu, 26 Nov 2026 00:00:03 GMT', now), 3000)
  t.equal(retryAfterMs('Wed, 25 Nov 2026 23:59:00 GMT', now), 0, 'a date past is now')
  t.equal(retryAfterMs(null, now), null)
  t.equal(retryAfterMs('soon', now), null)
})
