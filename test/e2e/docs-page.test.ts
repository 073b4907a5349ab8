import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

const run = promisify(execFile)

/** Debian's chromium (`npm test` installs it where it can: scripts/ensure-chromium.sh). */
const CHROMIUM = process.env.CHROMIUM ?? 'chromium'

const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api'] })

interface Operation {
  operationId: string
  tags?: string[]
}

t.test('given GET /v1/docs in headless Chromium, then the page renders every operation of the OpenAPI document, with nothing loaded from elsewhere', async (t) => {
  const page = await fetch(`${service.url}/v1/docs/`)
  t.equal(page.status, 200)
  const html = await page.text()
  t.notMatch(html, /https?:\/\/(?!127\.0\.0\.1)/, 'no script or style from another origin')
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/)

  // Chromium runs the page's scripts (Swagger UI from the installed package) and prints the DOM they built.
  const { stdout } = await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--virtual-time-budget=15000', '--dump-dom', `${service.url}/v1/docs/`], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  const doc = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> }
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item))
  t.ok(operations.length >= 18, `${operations.length} operations in the document`)
  const missing = operations.filter((op) => !stdout.includes(`operations-${op.tags?.[0] ?? 'default'}-${op.operationId}`))
  t.same(
    missing.map((op) => op.operationId),
    [],
    'every operation is on the page',
  )
  t.match(stdout, /Marketing Agent Task Service/, 'with the API title')
})
