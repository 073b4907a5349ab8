import { setTimeout as sleep } from 'node:timers/promises'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { RETRY_503_BUDGET_MS } from './retry-after.js'

export const textOf = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')

/** The delay an "unavailable" tool error asks for (`_meta.retryAfterSeconds`, REST's Retry-After), in ms; null for any other result. */
export function unavailableRetryMs(result: CallToolResult): number | null {
  const meta = result._meta
  if (!result.isError || meta?.code !== 'unavailable' || typeof meta.retryAfterSeconds !== 'number') return null
  return meta.retryAfterSeconds * 1000
}

/**
 * Calls a tool as a patient client would: a tool error saying the service is unavailable (REST's
 * 503, see retry-after.ts) is called again after the delay it asks for, within `budgetMs`, and
 * written to stderr; any other result, error or not, goes back to the test as it came.
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, budgetMs = RETRY_503_BUDGET_MS): Promise<CallToolResult> {
  const deadline = Date.now() + budgetMs
  for (;;) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult
    const waitMs = unavailableRetryMs(result)
    if (waitMs === null || Date.now() + waitMs > deadline) return result
    process.stderr.write(`[test client] MCP ${name}: ${textOf(result)}; calling it again in ${waitMs} ms\n`)
    await sleep(waitMs)
  }
}
