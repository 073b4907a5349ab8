import t from 'tap'
import { aContext, launchBrowser } from '../helpers/browser.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

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

  // Chromium runs the page's scripts (Swagger UI from the installed package); the test waits
  // until they have built the operations, however long a busy machine makes that take.
  const doc = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> }
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item))
  t.ok(operations.length >= 18, `${operations.length} operations in the document`)
  const browserPage = await (await aContext(await launchBrowser(t), t)).newPage()
  const elsewhere: string[] = []
  browserPage.on('request', (request) => {
    if (!request.url().startsWith(service.url) && !request.url().startsWith('data:')) elsewhere.push(request.url())
  })
  await browserPage.goto(`${service.url}/v1/docs/`)
  const last = operations.at(-1) as Operation
  await browserPage.locator(`#operations-${last.tags?.[0] ?? 'default'}-${last.operationId}`).waitFor({ timeout: 60_000 })
  const rendered = await browserPage.content()
  const missing = operations.filter((op) => !rendered.includes(`operations-${op.tags?.[0] ?? 'default'}-${op.operationId}`))
  t.same(
    missing.map((op) => op.operationId),
    [],
    'every operation is on the page',
  )
  t.same(elsewhere, [], 'nothing requested from another origin')
  t.match(rendered, /Marketing Agent Task Service/, 'with the API title')
})
