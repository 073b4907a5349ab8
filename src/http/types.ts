import type { AppContext } from '../app-context.js'
import type { ApiKeyAuthenticator, Principal } from './authenticator.js'

declare module 'fastify' {
  interface FastifyInstance {
    infra: AppContext
    authenticator: ApiKeyAuthenticator
  }
  interface FastifyRequest {
    principal: Principal | null
  }
}
