import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody } from '../../contract/errors.js'
import { consoleDirectory, loadAssets, type Asset } from '../console/assets.js'

export const CONSOLE_PATH = '/console'

/**
 * The page's own files only: no inline script or style, nothing from another origin, never
 * inside a frame (clickjacking of the Approve button), no form posted elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The web console (docs/console.md, ADR 0037) at /console: the single-page app `npm run build`
 * puts in dist/console, on the API's own origin, so that it calls /v1 with its session cookie.
 * Any path under /console that is not a built file is the app's own route: index.html
 * answers it (the SPA fallback) and the app draws the screen.
 */
export default fp(async function consoleApp(app: FastifyInstance) {
  const assets = loadAssets(consoleDirectory())
  const index = assets.get('index.html')

  function send(reply: FastifyReply, asset: Asset) {
    return reply
      .header('content-type', asset.contentType)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(asset.body)
  }

  async function answer(request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) {
    void reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin')
    if (!index) return reply.code(503).send(errorBody('not_ready', 'the console is not built: run `npm run build`'))
    const path = request.params['*'] ?? ''
    const asset = assets.get(path)
    if (asset) return send(reply, asset)
    // A missing file (an old hashed name, a typo) is a 404, not the app's page served as script.
    if (/\.[a-z0-9]+$/i.test(path)) return reply.code(404).send(errorBody('not_found', `no console file ${path}`))
    return send(reply, index)
  }

  app.get(CONSOLE_PATH, answer)
  app.get(`${CONSOLE_PATH}/*`, answer)
})
