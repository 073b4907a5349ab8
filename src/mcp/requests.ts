import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { isRecord } from '../domain/is-record.js'

/**
 * JSON-RPC checks the SDK leaves to us. An empty batch is an Invalid Request (JSON-RPC 2.0,
 * section 6); the SDK would accept it as "nothing to answer". A `tools/call` whose params
 * are not the shape MCP defines fails the SDK's own parse, which answers -32603 with the
 * validator's dump; here it is -32602 Invalid params naming the field.
 */
export const EMPTY_BATCH_REPLY = { jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch' }, id: null } as const

export function isEmptyBatch(body: unknown): boolean {
  return Array.isArray(body) && body.length === 0
}

/** Answers malformed `tools/call` requests itself; every other message goes on to the server. */
export function refuseMalformedToolCalls(transport: Transport): void {
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    const refusal = refusalFor(message)
    if (refusal === null) return deliver?.(message, extra)
    void transport.send(refusal)
  }
}

function refusalFor(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return null
  const problem = toolCallProblem(message.params)
  return problem === null ? null : { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } }
}

function toolCallProblem(params: unknown): string | null {
  if (!isRecord(params)) return 'params: must be an object with name and arguments'
  if (typeof params.name !== 'string') return 'params.name: must be a string naming a tool; call tools/list'
  if (params.arguments !== undefined && !isRecord(params.arguments)) return `params.arguments: must be an object (got ${kindOf(params.arguments)})`
  return null
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}
