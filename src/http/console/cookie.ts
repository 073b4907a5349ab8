import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * The console's session cookie. Over https it is `__Host-` prefixed (the browser then insists
 * on Secure, Path=/ and no Domain); over plain http (a laptop) it cannot be Secure. HttpOnly,
 * so no script reads it, and SameSite=Strict, so no other site's page sends it. No Max-Age:
 * it ends with the browser; the server ends it sooner (idle timeout, revoked key, sign-out).
 */
const SECURE_NAME = '__Host-mats_console'
const PLAIN_NAME = 'mats_console'
const TOKEN = /^mcs_[A-Za-z0-9_-]{43}$/

const isSecure = (request: FastifyRequest) => request.protocol === 'https'
const cookieName = (request: FastifyRequest) => (isSecure(request) ? SECURE_NAME : PLAIN_NAME)

/** The session token the request carries, if any and well formed. */
export function sessionToken(request: FastifyRequest): string | undefined {
  const value = cookieValue(request.headers.cookie, cookieName(request))
  return value !== undefined && TOKEN.test(value) ? value : undefined
}

/** The first value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** Whether the request carries a console cookie at all (well formed or not). */
export function hasSessionCookie(request: FastifyRequest): boolean {
  return cookieValue(request.headers.cookie, cookieName(request)) !== undefined
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  void reply.header('set-cookie', serialise(request, token, ''))
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('set-cookie', serialise(request, '', '; Max-Age=0'))
}

function serialise(request: FastifyRequest, value: string, extra: string): string {
  return `${cookieName(request)}=${value}; Path=/; HttpOnly; SameSite=Strict${isSecure(request) ? '; Secure' : ''}${extra}`
}

export const isSessionToken = (value: string) => TOKEN.test(value)
