import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { isRecord } from '../domain/is-record.js'

// What makes two requests the same for Idempotency-Key: the key as the draft writes it, and
// the request it was sent with.

/** The draft sends the key as a structured-field string (`"abc"`); a bare `abc` is the same key. */
export function keyOf(header: string): string {
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(header)
  return quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : header
}

/**
 * Same route, same path parameters and same JSON, whatever the order of its keys or its
 * whitespace. Parameters count only where a route has some (POST /v1/tasks/{taskId}/rerun:
 * one key for two tasks is two requests), so fingerprints stored before them still match.
 */
export function fingerprintOf(request: FastifyRequest): string {
  const params = isRecord(request.params) && Object.keys(request.params).length > 0 ? ` ${canonicalJson(request.params)}` : ''
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url ?? request.url}${params}\n${canonicalJson(request.body)}`)
    .digest('hex')
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}
