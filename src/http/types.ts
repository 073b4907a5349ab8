import type { Infra } from '../infra/context.js'
import type { ApiKeyAuthenticator, Principal } from './authenticator.js'

declare module 'fastify' {
  interface FastifyInstance {
    infra: Infra
    authenticator: ApiKeyAuthenticator
  }
  interface FastifyRequest {
    principal: Principal | null
  }
}
