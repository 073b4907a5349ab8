import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { Progress } from './progress.js'
import type { ToolContext } from './tool.js'
import { TOOLS } from './tools.js'

const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.listing.name, tool]))
const VERSION = '1.0.0'

const INSTRUCTIONS = [
  'Run AI marketing agents as background tasks.',
  "Workflow: list_sessions (reuse the company's session) or create_session; list_agents to pick an agentType (growth-marketer delegates when unsure);",
  'run_agent_task with a plain-English instruction; then get_task every 10 to 30 seconds until status is completed or failed, and read result.',
].join(' ')

/**
 * One MCP server per HTTP request (stateless Streamable HTTP: any API process can answer
 * any request). It knows the caller's account, so every tool call is scoped to it.
 */
export function buildMcpServer(context: Omit<ToolContext, 'progress' | 'correlationId'> & { requestId: string }): Server {
  const server = new Server({ name: 'mats', title: 'Marketing Agent Task Service', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
  const { requestId, ...shared } = context

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS.map((tool) => tool.listing) }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS_BY_NAME.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}; call tools/list`)
    const token = request.params._meta?.progressToken
    const progress: Progress | null =
      token === undefined
        ? null
        : {
            report: (progress, total, message) =>
              extra
                .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } })
                // The client may have gone away mid-wait; the call still completes.
                .catch(() => undefined),
          }
    // A batch may hold several calls: each gets its own correlation id.
    const correlationId = `${requestId}:${String(extra.requestId)}`
    return tool.call({ ...shared, correlationId, progress }, request.params.arguments)
  })
  return server
}
