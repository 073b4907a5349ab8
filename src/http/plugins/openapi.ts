import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { withComponents, type OpenApiDocument } from '../openapi-components.js'

export const API_PREFIX = '/v1'

/**
 * The OpenAPI 3.1 document is generated from the same TypeBox schemas that validate the
 * routes, with named component schemas and declared response headers. Paths are relative to
 * the server URL, which ends in `/v1` as the spec says.
 */
export default fp(async function openapi(app: FastifyInstance) {
  const base = app.infra.config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? ''
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Marketing Agent Task Service',
        version: '1.0.0',
        description: 'Give one of ten AI marketing agents a plain-English instruction, get a task back at once, poll it, read the result.',
      },
      servers: [{ url: `${base}${API_PREFIX}` }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: mats_...' } } },
      security: [{ bearerAuth: [] }],
    },
    transform: ({ schema, url }) => {
      if (!url.startsWith(`${API_PREFIX}/`)) return { schema: { ...schema, hide: true }, url }
      return { schema, url: url.slice(API_PREFIX.length) }
    },
    // Named, reused component schemas and the response headers (openapi-components.ts).
    transformObject: (documents) => ('openapiObject' in documents ? withComponents(documents.openapiObject as OpenApiDocument) : documents.swaggerObject),
  })
})
