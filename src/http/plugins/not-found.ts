import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody } from '../../contract/errors.js'

/**
 * Requests no route answers. An unknown path is 404; a known path asked with a method it
 * does not declare is 405 with `Allow` listing the ones it does (RFC 9110, 15.5.6). Routes
 * are recorded as they are added, so this plugin is registered before any route. Whatever the
 * method, even one fastify does not route (`QUERY`), the answer is the same. A route
 * that exists only to refuse its methods with a better message (GET /mcp) sets
 * `config.refusesMethod` and is left out of `Allow`.
 */
export default fp(async function notFound(app: FastifyInstance) {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>()

  app.addHook('onRoute', (route) => {
    if (route.config?.refusesMethod) return
    const known = paths.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() }
    for (const method of [route.method].flat()) known.methods.add(method)
    paths.set(route.url, known)
  })

  const allowedMethods = (path: string): string[] => [...new Set([...paths.values()].filter(({ pattern }) => pattern.test(path)).flatMap(({ methods }) => [...methods]))].sort()

  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? ''
    const allowed = allowedMethods(path)
    if (allowed.length === 0) return reply.code(404).send(errorBody('not_found', `no route for ${request.method} ${path}`))
    return reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send(errorBody('method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`))
  }

  // Answered before fastify reads a body: a method it takes as one with a body (QUERY, PROPFIND…)
  // would otherwise be a 400 (QUERY without Content-Type) or a 415 instead of the 404 or 405 it is.
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return answer(request, reply)
  })
  app.setNotFoundHandler(answer)
})

/** `/v1/tasks/:taskId` matches `/v1/tasks/<anything but a slash>`. */
function patternOf(url: string): RegExp {
  const segments = url.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escapeRegExp(segment)))
  return new RegExp(`^${segments.join('/')}$`)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers 405 itself; its methods are not offered in `Allow` for the path. */
    refusesMethod?: boolean
  }
}
