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
  readonly APIError: abstract new (...args: never[]) => Error & { readonly status: number | undefined }
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
  if (err instanceof errors.APIError) return new ProviderError(`the language model provider refused the call: ${scrub(err.message)}`, err.status ?? null, { cause: err })
  return err instanceof Error ? err : new Error(String(err))
}
