import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { UnauthorizedError } from '../../domain/errors.js'
import { clientSubject } from '../client-address.js'
import { clearSessionCookie, hasSessionCookie, sessionToken, setSessionCookie } from '../console/cookie.js'
import { CsrfError } from '../console/csrf-error.js'
import { isSameOrigin } from '../console/same-origin.js'
import { csrfMatches, isBackground } from '../console/sessions.js'

export const CONSOLE_SESSION_PATH = '/console/api/session'

const SignInBody = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 200, description: 'An API key of the account' }) }, { additionalProperties: false })

/**
 * The console's sign-in, outside /v1 (not an API operation; the OpenAPI document hides it):
 * POST exchanges a pasted API key for a session cookie, GET says who the cookie acts for and
 * hands the page its CSRF token (the token lives in the page's memory only), DELETE signs out.
 * A wrong key counts as a failed authentication of the client address like any other 401.
 */
export default async function consoleSession(app: FastifyInstance): Promise<void> {
  const { config } = app.infra
  const sessions = app.consoleSessions
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store')

  app.post<{ Body: Static<typeof SignInBody> }>(CONSOLE_SESSION_PATH, { schema: { body: SignInBody } }, async (request, reply) => {
    if (!isSameOrigin(request, config.PUBLIC_BASE_URL)) throw new CsrfError('Origin: sign in from a page of this origin')
    const address = clientSubject(request.ip)
    try {
      const { token, view } = await sessions.signIn(request.body.apiKey, () => app.authFailures.assertAdmitted(address, reply))
      setSessionCookie(request, reply, token)
      return noStore(reply).code(201).send(view)
    } catch (err) {
      if (err instanceof UnauthorizedError) await app.authFailures.record(address, reply)
      throw err
    }
  })

  app.get(CONSOLE_SESSION_PATH, async (request, reply) => {
    const { record } = await resolveOrForget(request, reply)
    return noStore(reply).send(sessions.view(record))
  })

  app.delete(CONSOLE_SESSION_PATH, async (request, reply) => {
    const { record } = await resolveOrForget(request, reply)
    if (!isSameOrigin(request, config.PUBLIC_BASE_URL)) throw new CsrfError('Origin: sign out from a page of this origin')
    if (!csrfMatches(record, request.headers['x-csrf-token'])) throw new CsrfError("headers.x-csrf-token: missing or not this session's token")
    await sessions.signOut(sessionToken(request))
    clearSessionCookie(request, reply)
    return noStore(reply).code(204).send()
  })

  /**
   * A cookie that no longer names a live session is cleared from the browser as it is refused,
   * and counts as a failed authentication; a page opened without any cookie does not.
   */
  async function resolveOrForget(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await sessions.resolve(sessionToken(request), { touch: !isBackground(request.headers) })
    } catch (err) {
      if (err instanceof UnauthorizedError && hasSessionCookie(request)) {
        clearSessionCookie(request, reply)
        await app.authFailures.record(clientSubject(request.ip), reply)
      }
      throw err
    }
  }
}
