import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { API_PREFIX } from './openapi.js'

export const DOCS_PATH = `${API_PREFIX}/docs`

/**
 * The API reference at GET /v1/docs: Swagger UI rendering the OpenAPI document, its scripts
 * and styles served from the installed package (no CDN, works offline), no key needed. Its
 * online validator badge is off (it would call validator.swagger.io); the page's CSP allows
 * only this origin. Every file it serves spends from the `openapi` rate-limit group of the
 * client address, as the document itself does.
 */
export default fp(
  async function docs(app: FastifyInstance) {
    // In a scope of its own, so that the hook covers every route the UI registers, its static files included.
    await app.register(async (scope) => {
      scope.addHook('onRequest', app.rateLimit('openapi'))
      await scope.register(swaggerUi, {
        routePrefix: DOCS_PATH,
        logLevel: 'warn',
        uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
        staticCSP: {
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          'object-src': ["'none'"],
          'frame-ancestors': ["'self'"],
        },
      })
    })
  },
  { dependencies: ['rate-limit'] },
)
