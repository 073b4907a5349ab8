import { setTimeout as sleep } from 'node:timers/promises'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { UNAVAILABLE_MESSAGE } from '../../src/mcp/tool.js'
import { RETRY_503_BUDGET_MS } from './retry-after.js'

/** What REST's Retry-After says while a dependency is out of reach (src/http/plugins/errors.ts): MCP's tool error carries no delay of its own. */
const UNAVAILABLE_RETRY_MS = 2000

export const textOf = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')

/**
 * Calls a tool as a patient client would: a tool error saying the service is unavailable (REST's
 * 503, see retry-after.ts) is called again 2 s later, within `budgetMs`, and written to stderr;
 * any other result, error or not, goes back to the test as it came.
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, budgetMs = RETRY_503_BUDGET_MS): Promise<CallToolResult> {
  const deadline = Date.now() + budgetMs
  for (;;) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult
    if (!result.isError || textOf(result) !== UNAVAILABLE_MESSAGE || Date.now() + UNAVAILABLE_RETRY_MS > deadline) return result
    process.stderr.write(`[test client] MCP ${name}: ${UNAVAILABLE_MESSAGE}; calling it again in ${UNAVAILABLE_RETRY_MS} ms\n`)
    await sleep(UNAVAILABLE_RETRY_MS)
  }
}
