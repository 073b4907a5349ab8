/**
 * A typed client for the mats REST API: every path, parameter, body and answer (errors
 * included) typed from the OpenAPI document, on openapi-fetch.
 *
 *   const mats = createMatsClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.MATS_KEY! })
 *   const { data, error } = await mats.POST('/tasks', { body: { sessionId, instruction: 'Plan the launch' } })
 *   if (error) console.error(error.code, error.error)
 */
import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './schema.js'

export type { components, operations, paths } from './schema.js'

export interface MatsClientOptions {
  /** Where mats serves, without `/v1` (e.g. `http://127.0.0.1:8080`). */
  readonly baseUrl: string
  /** An API key, `mats_…`. */
  readonly apiKey: string
  /** A fetch of your own (a proxy, retries, tests). */
  readonly fetch?: typeof globalThis.fetch
}

export type MatsClient = Client<paths>

export function createMatsClient(options: MatsClientOptions): MatsClient {
  const client = createClient<paths>({ baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/v1`, ...(options.fetch ? { fetch: options.fetch } : {}) })
  client.use({
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${options.apiKey}`)
      return request
    },
  })
  return client
}
