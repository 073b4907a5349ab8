import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { API_PREFIX } from './openapi.js'

export const DOCS_PATH = `${API_PREFIX}/docs`

/**
 * The API reference at GET /v1/docs: Swagger UI rendering the OpenAPI document, its scripts
 * and styles served from the installed package (no CDN, works offline), no key needed. Its
 * online validator badge is off (it would call validator.swagger.io); the page's CSP allows
 * only this origin.
 */
export default fp(async function docs(app: FastifyInstance) {
  await app.register(swaggerUi, {
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
