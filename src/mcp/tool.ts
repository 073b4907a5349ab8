import type { CallToolResult, Tool as ToolListing, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyBaseLogger, FastifySchemaValidationError } from 'fastify'
import type { Static, TObject, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { DomainError } from '../domain/errors.js'
import type { AppContext } from '../app-context.js'
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
  /** Set when the client asked for progress (a `progressToken` in the request `_meta`). */
  readonly progress: Progress | null
  readonly log: FastifyBaseLogger
}

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
          return toolError(describeValidation(check.Errors(value) as unknown as FastifySchemaValidationError[], 'arguments'))
        }
        const { structured, text } = await spec.run(ctx, value)
        return { content: [{ type: 'text', text }], structuredContent: structured }
      } catch (err) {
        return toolError(messageOf(err, ctx.log, name))
      }
    },
  }
}

/** A tool's answer while NATS or MongoDB is out of reach: REST's 503 message (MCP has no Retry-After; REST's is 2 s). */
export const UNAVAILABLE_MESSAGE = 'service temporarily unavailable, retry later'

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}

/** The message REST would put in `{ error }` (src/http/plugins/errors.ts). */
function messageOf(err: unknown, log: FastifyBaseLogger, tool: string): string {
  if (err instanceof DomainError) return err.message
  const dependency = isDependencyUnavailable(err)
  log.error({ err, tool }, dependency ? 'dependency unavailable' : 'unhandled error in MCP tool')
  return dependency ? UNAVAILABLE_MESSAGE : 'internal error'
}
