/**
 * The console's Tasks screen of an account with 100,000 tasks, in Debian's Chromium (issue 20:
 * its first page ≤ 500 ms after navigation), and a small account's lists while four clients
 * list the big one (invariant 12: one tenant never slows another).
 *
 * The big account's tasks are folded by the projections' own evolve into the read models
 * (bench/task-list-accounts.ts), the small account's appended to the log and projected. The
 * `api` role runs in a process of its own (the projector, the browser driver and this script
 * in this one; the load clients in a third). Per round, signed in as the big account: open
 * /console/tasks (navigation start → first rows), choose Status "failed", Next page three
 * times, then load page 41 by its URL (`?page=41`: the console pages by offset; the pager
 * links pages by number). Then the small account's GET /v1/tasks (as the console sends it) and
 * its Tasks screen, alone and while 4 clients list the big account back to back.
 *
 *   npm run bench:console     [STORED=100000] [SMALL=200] [ROUNDS=7]
 */
import { launchChromium } from '../test/helpers/browser.js'
import { ensureConsoleBuilt } from '../test/helpers/console.js'
import { apiApart } from './api-apart.js'
import { filterByStatus, nextPage, openTasks, pagerText, signedInPage, type Timing } from './console-screen.js'
import { benchServers, benchService } from './harness.js'
import { listLoad } from './list-load.js'
import { percentile } from './stats.js'
import { appendToLog, caughtUp, seedReadModels, type Tenant, tenant } from './task-list-accounts.js'

const STORED = Number(process.env.STORED ?? 100_000)
const SMALL = Number(process.env.SMALL ?? 200)
const ROUNDS = Number(process.env.ROUNDS ?? 7)
const ENV = { RATE_LIMITS_ENABLED: 'false' }
const say = (line: string) => process.stdout.write(`${line}\n`)
const load = async () => (await import('node:fs/promises')).readFile('/proc/loadavg', 'utf8').then((text) => text.split(' ').slice(0, 3).join(' '))

ensureConsoleBuilt()
const servers = await benchServers()
const projector = await benchService(servers.natsUrl, servers.mongoUrl, ENV, ['projector'])
const big = await tenant(projector.infra, 'big', STORED, 20)
const small = await tenant(projector.infra, 'small', SMALL, 1)
let started = performance.now()
await seedReadModels(projector.infra, big)
say(`seeded ${STORED.toLocaleString('en-US')} tasks into the read models in ${seconds(started)} s (load ${await load()})`)
const api = await apiApart(servers.natsUrl, servers.mongoUrl, ENV)
started = performance.now()
await appendToLog(projector.infra, small)
await Promise.all([caughtUp(api.url, big), caughtUp(api.url, small)])
say(`appended ${SMALL} tasks to the log and projected them in ${seconds(started)} s`)

const browser = await launchChromium()
const bigPage = await signedInPage(browser, api.url, big.key)
const smallPage = await signedInPage(browser, api.url, small.key)

const samples = new Map<string, Timing[]>()
const record = (name: string, timing: Timing) => samples.set(name, [...(samples.get(name) ?? []), timing])
say(`\nload before the rounds: ${await load()}`)
// Round 0 warms up (the bundle into the cache, the store's pages into memory) and is not kept.
for (let round = 0; round <= ROUNDS; round++) {
  const keep = (name: string, timing: Timing) => round > 0 && record(name, timing)
  keep('open Tasks (navigation → first rows)', await openTasks(bigPage, api.url))
  keep('Status filter "failed"', await filterByStatus(bigPage, 'failed'))
  for (let n = 0; n < 3; n++) keep('Next page (of failed, pages 2–4)', await nextPage(bigPage))
  keep('page 41 by URL (?page=41, offset 1,000)', await openTasks(bigPage, api.url, '?page=41'))
}
say(`page 41 says: ${await pagerText(bigPage)}`)
say(`load after the rounds: ${await load()}`)
say(`\nThe Tasks screen of the account of ${STORED.toLocaleString('en-US')} tasks, ${ROUNDS} rounds, ms: p50 / p95 (min–max) on screen; the page's GET /v1/tasks p50 / p95`)
table([...samples].map(([name, timings]) => [name, timings]))

// Invariant 12: the small account alone, then while 4 clients list the big account.
const SMALL_LIST = '/v1/tasks?limit=25'
const bigLists = ['/v1/tasks?limit=25', '/v1/tasks?status=failed&limit=25', '/v1/tasks?limit=25&page=2', '/v1/tasks?limit=25&page=41']
const alone = await smallProbes(small)
const loadBefore = await load()
const clients = await listLoad({ baseUrl: api.url, headers: big.headers, paths: bigLists, clients: 4 })
const beside = await smallProbes(small)
const done = await clients.stop()
say(`\nThe small account (${SMALL} tasks) alone, then while 4 clients list the big one back to back (load ${loadBefore} → ${await load()}):`)
say(
  `the 4 clients made ${done.ms.length.toLocaleString('en-US')} requests in ${done.seconds.toFixed(1)} s (${(done.ms.length / done.seconds).toFixed(1)}/s, p50 ${f(percentile(done.ms, 50))} ms, p95 ${f(percentile(done.ms, 95))} ms, ${done.failed} failed)`,
)
say('| small account | alone p50 / p95 | beside the 4 clients p50 / p95 | ratio p50 / p95 |\n|---|---|---|---|')
for (const name of ['GET /v1/tasks (first page)', 'Tasks screen (navigation → first rows)'] as const) {
  const [a, b] = [alone.get(name) ?? [], beside.get(name) ?? []]
  say(
    `| ${name} | ${f(percentile(a, 50))} / ${f(percentile(a, 95))} | ${f(percentile(b, 50))} / ${f(percentile(b, 95))} | ${(percentile(b, 50) / percentile(a, 50)).toFixed(1)} / ${(percentile(b, 95) / percentile(a, 95)).toFixed(1)} |`,
  )
}

await browser.close()
await api.stop()
await projector.stop()
await servers.stop()

async function smallProbes(t: Tenant): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>([
    ['GET /v1/tasks (first page)', []],
    ['Tasks screen (navigation → first rows)', []],
  ])
  for (let i = 0; i < ROUNDS * 3; i++) {
    const began = performance.now()
    const response = await fetch(`${api.url}${SMALL_LIST}`, { headers: t.headers })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`small list: ${response.status}`)
    found.get('GET /v1/tasks (first page)')!.push(performance.now() - began)
  }
  for (let i = 0; i < ROUNDS; i++) found.get('Tasks screen (navigation → first rows)')!.push((await openTasks(smallPage, api.url)).screenMs)
  return found
}

function table(rows: [string, Timing[]][]): void {
  say('| action | on screen p50 / p95 (min–max) | GET /v1/tasks p50 / p95 | HTML in / GET /v1/tasks sent, at p50 |\n|---|---|---|---|')
  for (const [name, timings] of rows) {
    const screen = timings.map((t) => t.screenMs)
    const api = timings.flatMap((t) => (t.apiMs === undefined ? [] : [t.apiMs]))
    const sent = timings.flatMap((t) => (t.listSentMs === undefined ? [] : [t.listSentMs]))
    const html = timings.flatMap((t) => (t.documentMs === undefined ? [] : [t.documentMs]))
    say(
      `| ${name} | ${f(percentile(screen, 50))} / ${f(percentile(screen, 95))} (${f(Math.min(...screen))}–${f(Math.max(...screen))}) | ${f(percentile(api, 50))} / ${f(percentile(api, 95))} | ${sent.length ? `${f(percentile(html, 50))} / ${f(percentile(sent, 50))}` : ''} |`,
    )
  }
}

function f(ms: number): string {
  return ms.toLocaleString('en-US', { maximumFractionDigits: 0 })
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1)
}
