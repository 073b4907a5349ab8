import type { CallToolResult, Tool as ToolListing, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyBaseLogger, FastifySchemaValidationError } from 'fastify'
import type { Static, TObject, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { DomainError, RateLimitedError } from '../domain/errors.js'
import { UNAVAILABLE_RETRY_AFTER_S } from '../contract/errors.js'
import type { AppContext } from '../app-context.js'
import type { Issuer } from '../commands/execute.js'
import { isDependencyUnavailable } from '../infra/unavailable.js'
import type { Principal } from '../contract/principal.js'
import type { Limiter, LimitGroup } from '../contract/rate-limits.js'
import { describeValidation } from '../contract/validation-messages.js'
import type { Progress } from './progress.js'

/** What a tool call runs with: the caller's account, and nothing of the HTTP request. */
export interface ToolContext {
  readonly infra: AppContext
  readonly limiter: Limiter
  readonly principal: Principal
  /** Ties together the events this call causes, as a REST request id does. */
  readonly correlationId: string
  /** When the HTTP request carrying the call arrived (epoch ms): the answer budget counts from it. */
  readonly receivedAt: number
  /** Set when the client asked for progress (a `progressToken` in the request `_meta`). */
  readonly progress: Progress | null
  readonly log: FastifyBaseLogger
}

/** Who issues the call's command, and since when it waits for its answer. */
export const issuerOf = (ctx: ToolContext): Issuer => ({ correlationId: ctx.correlationId, keyId: ctx.principal.keyId, receivedAt: ctx.receivedAt })

export interface ToolOutput {
  /** The same JSON as the REST response body. */
  readonly structured: Record<string, unknown>
  /** A readable rendering of it, for clients and models that only show text. */
  readonly text: string
}

export interface ToolSpec<S extends TObject> {
  readonly name: string
  readonly title: string
  readonly description: string
  /** The REST operation group whose rate limit the tool spends. */
  readonly limitGroup: LimitGroup
  /** The tool spends its group's limit itself, once per item (a batch), instead of once per call. */
  readonly limitsEachItem?: boolean
  /** What arguments are checked against before `run`. */
  readonly input: S
  /** The input schema tools/list shows, when `run` checks more than `input` does (a batch checks each item on its own). */
  readonly listedInput?: TSchema
  readonly output: TSchema
  readonly annotations: ToolAnnotations
  run(ctx: ToolContext, args: Static<S>): Promise<ToolOutput>
}

export interface Tool {
  readonly listing: ToolListing
  call(ctx: ToolContext, args: unknown): Promise<CallToolResult>
}

/**
 * Wraps a tool in what REST gives a route: the rate limit of its group first, then
 * validation against the same TypeBox schema (as sent, no coercion: the low-level MCP
 * server checks nothing), then domain errors as messages. Every failure is a tool error
 * (`isError`), so a model reads the message and can correct its call.
 */
export function defineTool<S extends TObject>(spec: ToolSpec<S>): Tool {
  const check = Compile(spec.input)
  const { name, title, description, annotations } = spec
  return {
    listing: { name, title, description, annotations, inputSchema: (spec.listedInput ?? spec.input) as ToolListing['inputSchema'], outputSchema: spec.output as ToolListing['outputSchema'] },
    async call(ctx, args) {
      try {
        if (!spec.limitsEachItem) await ctx.limiter.check(spec.limitGroup, ctx.principal.accountId)
        const value = args ?? {}
        if (!check.Check(value)) {
          return toolError(describeValidation(check.Errors(value) as unknown as FastifySchemaValidationError[], 'arguments'), { code: 'invalid_request' })
        }
        const { structured, text } = await spec.run(ctx, value)
        return { content: [{ type: 'text', text }], structuredContent: structured }
      } catch (err) {
        return errorResult(err, ctx.log, name)
      }
    },
  }
}

/** A tool's answer while NATS or MongoDB is out of reach: REST's 503 message, and when to call again (REST's Retry-After). */
export const UNAVAILABLE_MESSAGE = `service temporarily unavailable, retry later: call again in ${UNAVAILABLE_RETRY_AFTER_S} s`

/**
 * What a program reads of a tool error, in its `_meta` (structuredContent is checked against
 * the tool's output schema, even on an error, by the SDK's client): REST's `code`, its details
 * (`existingTaskId`), and `retryAfterSeconds` where REST sends Retry-After (503, 429).
 */
export type ToolErrorMeta = { readonly code: string; readonly retryAfterSeconds?: number } & Readonly<Record<string, unknown>>

function toolError(message: string, meta?: ToolErrorMeta): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, ...(meta ? { _meta: meta } : {}) }
}

/** The message REST would put in `{ error }` (src/http/plugins/errors.ts), with its code. */
function errorResult(err: unknown, log: FastifyBaseLogger, tool: string): CallToolResult {
  if (err instanceof RateLimitedError) return toolError(err.message, { code: err.code, retryAfterSeconds: err.retryAfterSeconds })
  if (err instanceof DomainError) return toolError(err.message, { ...err.details, code: err.code })
  const dependency = isDependencyUnavailable(err)
  log.error({ err, tool }, dependency ? 'dependency unavailable' : 'unhandled error in MCP tool')
  return dependency ? toolError(UNAVAILABLE_MESSAGE, { code: 'unavailable', retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_S }) : toolError('internal error', { code: 'internal_error' })
}
