import type { Browser, Page } from 'playwright-core'

/**
 * The console's Tasks screen driven in Chromium, each action timed by the page's own clock
 * (performance.now()): from navigation start, or from the moment the user's input reached the
 * page, to the first frame in which the rows it asked for stand in the table. Beside it, how
 * long the page's GET /v1/tasks took (Resource Timing), to tell the API's share from the rest.
 */
export interface Timing {
  readonly screenMs: number
  readonly apiMs: number | undefined
  /** For a new document: when its GET /v1/tasks was sent, ms after navigation start (what came before it: the page, its script, the session check). */
  readonly listSentMs?: number | undefined
  /** For a new document: when its HTML had arrived, ms after navigation start. */
  readonly documentMs?: number | undefined
}

/** Before the app's scripts: records when rows first stand in the Tasks table of this document. */
const FIRST_ROWS_WATCH = `(() => {
  const observer = new MutationObserver(() => {
    if (window.__firstRowsAt === undefined && document.querySelector('table tbody tr a')) {
      window.__firstRowsAt = performance.now()
      observer.disconnect()
    }
  })
  observer.observe(document, { subtree: true, childList: true })
})()`

/** The duration of the page's last GET /v1/tasks (not /v1/tasks/counts) since the timings were cleared. */
const LIST_REQUEST = `(() => {
  const lists = performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/tasks?'))
  const last = lists.at(-1)
  return last ? { ms: last.responseEnd - last.startTime, sentAt: last.startTime } : null
})()`

/** A page of a fresh browser profile, signed in through the form with `key`. */
export async function signedInPage(browser: Browser, baseUrl: string, key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(120_000)
  await context.addInitScript(FIRST_ROWS_WATCH)
  const page = await context.newPage()
  await page.goto(`${baseUrl}/console`)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
  return page
}

/** Loads /console/tasks`query` as a new document (a typed or shared URL): navigation start → first rows. */
export async function openTasks(page: Page, baseUrl: string, query = ''): Promise<Timing> {
  await page.goto(`${baseUrl}/console/tasks${query}`)
  await frameWhen(page, 'window.__firstRowsAt !== undefined')
  const list = await listRequest(page)
  const documentMs = await page.evaluate<number>("performance.getEntriesByType('navigation')[0]?.responseEnd ?? NaN")
  return { screenMs: await page.evaluate<number>('window.__firstRowsAt'), apiMs: list?.ms, listSentMs: list?.sentAt, documentMs }
}

/** Chooses `status` in the "Status" filter: the change event → every row of that status. */
export function filterByStatus(page: Page, status: string): Promise<Timing> {
  const shown = `(() => {
    const rows = [...document.querySelectorAll('table tbody tr .status')]
    return new URLSearchParams(location.search).get('status') === ${JSON.stringify(status)} && rows.length > 0 && rows.every((r) => r.textContent === ${JSON.stringify(status)})
  })()`
  return timedInput(page, () => page.getByLabel('Status', { exact: true }).selectOption(status), shown)
}

/** Clicks "Next page": the click → the pager says the next page's number. */
export async function nextPage(page: Page): Promise<Timing> {
  const pager = page.locator('nav.pager span')
  const now = Number(/Page (\d+)/.exec((await pager.textContent()) ?? '')?.[1])
  const shown = `(document.querySelector('nav.pager span')?.textContent ?? '').startsWith('Page ${now + 1} of')`
  return timedInput(page, () => page.getByRole('button', { name: 'Next page' }).click(), shown)
}

/** The page's pager line, e.g. "Page 41 of 4000 (100000 in all)". */
export const pagerText = async (page: Page) => (await page.locator('nav.pager span').textContent()) ?? ''

async function timedInput(page: Page, act: () => Promise<unknown>, shown: string): Promise<Timing> {
  await page.evaluate(`(() => {
    performance.clearResourceTimings()
    window.__inputAt = undefined
    const stop = new AbortController()
    const mark = () => { window.__inputAt = performance.now(); stop.abort() }
    for (const type of ['change', 'click']) document.addEventListener(type, mark, { capture: true, signal: stop.signal })
  })()`)
  await act()
  const doneAt = await frameWhen(page, shown)
  const inputAt = await page.evaluate<number>('window.__inputAt')
  return { screenMs: doneAt - inputAt, apiMs: (await listRequest(page))?.ms }
}

/**
 * The page's time of the first animation frame at which `condition` holds. Checked in the page
 * itself (a string evaluated by the protocol, which the console's CSP, without 'unsafe-eval',
 * allows; Playwright's waitForFunction compiles its predicate in the page and is refused).
 */
function frameWhen(page: Page, condition: string): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve) => {
    const check = () => ((${condition}) ? resolve(performance.now()) : requestAnimationFrame(check))
    check()
  })`)
}

async function listRequest(page: Page): Promise<{ ms: number; sentAt: number } | undefined> {
  return (await page.evaluate<{ ms: number; sentAt: number } | null>(LIST_REQUEST)) ?? undefined
}
