import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import { answer } from '../../contract/common.js'
import { errorSchema } from '../../contract/errors.js'
import { API_PREFIX } from './openapi.js'

export const DOCS_PATH = `${API_PREFIX}/docs`

/**
 * The public documentation, no key needed: the OpenAPI document at GET /v1/openapi.json and
 * the API reference at GET /v1/docs, Swagger UI rendering it, its scripts and styles served
 * from the installed package (no CDN, works offline). Its online validator badge is off (it
 * would call validator.swagger.io); the page's CSP allows only this origin. One scope, whose
 * hook makes every route in it spend from the `openapi` rate-limit group of the client address.
 */
export default fp(
  async function docs(app: FastifyInstance) {
    // A scope of its own, so that the hook covers every route the UI registers, its static files included.
    await app.register(async (scope) => {
      scope.addHook('onRequest', app.rateLimit('openapi'))
      scope.get(
        `${API_PREFIX}/openapi.json`,
        {
          schema: {
            summary: 'This document (OpenAPI 3.1)',
            operationId: 'getOpenApi',
            description:
              'The OpenAPI 3.1 document of /v1, generated from the schemas that validate the routes: named component schemas, the error codes of each status, the headers of each answer. No key needed; limited per client address. Rendered at /v1/docs.',
            tags: ['meta'],
            security: [],
            response: { 200: answer(Type.Object({}, { additionalProperties: true }), 'The document'), 429: errorSchema(429, 'Rate limited per client address; see Retry-After') },
          },
        },
        async () => app.swagger(),
      )
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
