import type { Logger } from 'pino'
import { ProviderError } from './chat.js'

export interface ClientSettings {
  readonly apiKey: string | undefined
  readonly baseUrl: string | undefined
  readonly requestTimeoutMs: number
  readonly maxRetries: number
  readonly log: Logger
}

type LogFn = (message: string, ...rest: unknown[]) => void

/** The SDKs' own warnings (retries, deprecations) go to our log; they never carry request bodies at this level. */
export function sdkLogger(log: Logger): { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } {
  const sdk = log.child({ component: 'llm-sdk' })
  return {
    error: (message) => sdk.error(message),
    warn: (message) => sdk.warn(message),
    info: (message) => sdk.info(message),
    debug: (message) => sdk.debug(message),
  }
}

/** The error classes both SDKs export under the same names. */
export interface SdkErrors {
  readonly APIError: abstract new (...args: never[]) => Error & { readonly status: number | undefined; readonly error: unknown }
  readonly APIConnectionError: abstract new (...args: never[]) => Error
  readonly APIConnectionTimeoutError: abstract new (...args: never[]) => Error
}

const MAX_DETAIL = 300

/**
 * What the run reports once the SDK gave up retrying. An abort is passed through as its
 * reason, so the worker can tell a time limit from a shutdown. The API key, should a
 * provider echo it, is cut out of the message.
 */
export function toProviderError(err: unknown, signal: AbortSignal, errors: SdkErrors, apiKey: string | undefined): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted', { cause: err })
  const scrub = (text: string): string => (apiKey ? text.replaceAll(apiKey, '[redacted]') : text).slice(0, MAX_DETAIL)
  if (err instanceof errors.APIConnectionTimeoutError) return new ProviderError('the language model did not answer in time, after retries', null, { cause: err })
  if (err instanceof errors.APIConnectionError) return new ProviderError(`the language model provider could not be reached, after retries: ${scrub(err.message)}`, null, { cause: err })
  if (err instanceof errors.APIError) {
    // The SDK's own message is the raw body when it cannot find a message where it looks (all of Anthropic's).
    const detail = apiMessage(err.error) ?? err.message.replace(/^\d{3} /, '')
    return new ProviderError(`the language model provider refused the call: ${scrub([err.status, detail].filter((part) => part !== undefined).join(' '))}`, err.status ?? null, { cause: err })
  }
  // The SDK parses a JSON reply after it stopped retrying: nothing but a reply that is not JSON throws this here.
  if (err instanceof SyntaxError) return malformedReply(`its body is not JSON (${scrub(err.message)})`, err)
  return err instanceof Error ? err : new Error(String(err))
}

/** A successful (200) reply the client cannot read: the provider's fault, not the run's. */
export function malformedReply(what: string, cause?: unknown): ProviderError {
  return new ProviderError(`the language model provider sent a reply mats cannot read: ${what}`, null, { cause })
}

/** The provider's own words in an error body: Anthropic `{type, error: {type, message}}`, OpenAI `{message, type, code}`. */
function apiMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null
  const nested = 'error' in body ? apiMessage(body.error) : null
  if (nested !== null) return nested
  return 'message' in body && typeof body.message === 'string' && body.message !== '' ? body.message : null
}

/** What came instead of a reply, briefly: the SDK hands over a body that is not JSON as a string. */
export function describeReply(reply: unknown): string {
  if (typeof reply === 'string') return `a body that is not JSON: ${JSON.stringify(reply.slice(0, 80))}`
  if (typeof reply !== 'object' || reply === null) return `a reply of ${String(reply)}`
  return `a reply with the fields ${Object.keys(reply).slice(0, 10).join(', ') || 'none'}`
}
