import { Type, type TSchema } from 'typebox'
import { errorSchema } from './errors.js'

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const Uuid = Type.String({ format: 'uuid' })
export const DateTime = Type.String({ format: 'date-time' })

export const PAGE_DEFAULT = 1
/** Far past any real list; keeps `(page - 1) * limit` an exact skip for the database. */
export const PAGE_MAX = 1_000_000
export const LIMIT_DEFAULT = 25
export const LIMIT_MAX = 100

/**
 * Patterns, with what a caller reads when a value does not match them (TypeBox would
 * only quote the expression). URL schemes are case-insensitive, so the pattern is too.
 */
export const NOT_BLANK = '\\S'
export const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]'
export const PRINTABLE_ASCII = '^[\\x20-\\x7E]*$'
export const MONTH = '^[0-9]{4}-(0[1-9]|1[0-2])$'
export const DURATION = '^[1-9][0-9]{0,8}[smhd]$'
export const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [NOT_BLANK]: 'must not be blank (whitespace only)',
  [HTTP_URL]: 'must be an http:// or https:// URL',
  [PRINTABLE_ASCII]: 'must be printable ASCII characters only',
  [MONTH]: 'must be a month, YYYY-MM (e.g. 2026-11)',
  [DURATION]: 'must be a duration such as 90s, 15m, 1h or 1d',
}

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: PAGE_DEFAULT, description: 'Which page, from 1' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT, description: 'How many items a page holds' })),
}

export const Pagination = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer(),
  },
  { title: 'Pagination' },
)

const ERROR_DESCRIPTIONS = {
  400: 'Validation error; the message names the field',
  401: 'Missing, invalid, revoked or expired API key',
  402: 'Monthly budget exhausted',
  404: 'Not found, or owned by another account',
  409: 'Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval',
  422: 'The Idempotency-Key was already used with a different request body',
  429: 'Rate limited; see Retry-After',
  503: 'NATS or MongoDB is out of reach for now; retry after Retry-After seconds',
} as const

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS

/** Response schemas for the error statuses a route can answer; every route that reaches NATS or MongoDB can answer 503. */
export function errors(...statuses: ErrorStatus[]): Record<ErrorStatus, TSchema> {
  const responses = {} as Record<ErrorStatus, TSchema>
  for (const status of [...statuses, 503] as const) responses[status] = errorSchema(status, ERROR_DESCRIPTIONS[status])
  return responses
}

export function pageOf(query: { page?: number | undefined; limit?: number | undefined }): { page: number; limit: number } {
  return { page: query.page ?? PAGE_DEFAULT, limit: query.limit ?? LIMIT_DEFAULT }
}

export function paginationFor(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) }
}

/**
 * A success answer's schema with the description the OpenAPI document gives its status;
 * @fastify/swagger moves `x-response-description` to the response, out of the schema.
 */
export function answer<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, 'x-response-description': description }
}
