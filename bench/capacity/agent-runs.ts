/**
 * An agent run as the LLM tests script one (test/integration/llm-*.test.ts): 3 to 8 model
 * calls, each answered after 1 to 10 s (CALL_MIN_MS, CALL_MAX_MS), every call but the last
 * asking for a tool (`remember_fact`, the same fact each time, so a session's prompt does not
 * grow run after run), the last one answering the deliverable. Decided by the brief, so mats
 * and the BullMQ worker get the same runs. It counts each conversation's first calls: a brief
 * whose first call comes twice was run twice.
 */
import type { ModelReply, ModelRequestView, ModelScript } from '../../test/fakes/model-server.js'

export const CALL_MIN_MS = Number(process.env.CALL_MIN_MS ?? 1000)
export const CALL_MAX_MS = Number(process.env.CALL_MAX_MS ?? 10_000)
export const FACT = 'The brand voice is plain and direct'

/** A small deterministic hash (FNV-1a): the same brief always makes the same run. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

export function callsOf(brief: string): number {
  return 3 + (hash(brief) % 6)
}

function delayOf(brief: string, turn: number): number {
  return CALL_MIN_MS + (hash(`${brief}#${turn}`) % (CALL_MAX_MS - CALL_MIN_MS + 1))
}

export interface AgentRuns {
  readonly script: ModelScript
  /** First calls per brief. */
  readonly firstCalls: Map<string, number>
  /** Model calls answered so far. */
  answered: number
  /** Runs whose first call came and whose last was not answered yet: the runs held right now. */
  active: number
}

export function agentRuns(): AgentRuns {
  const runs: AgentRuns = {
    firstCalls: new Map(),
    answered: 0,
    active: 0,
    script: async (request: ModelRequestView): Promise<ModelReply> => {
      if (request.turn === 0) {
        runs.firstCalls.set(request.brief, (runs.firstCalls.get(request.brief) ?? 0) + 1)
        runs.active++
      }
      await new Promise((r) => setTimeout(r, delayOf(request.brief, request.turn)))
      runs.answered++
      if (request.turn + 1 < callsOf(request.brief)) return { text: '', calls: [{ name: 'remember_fact', args: { fact: FACT } }] }
      runs.active--
      return { text: `# Plan\n\n${'A paragraph of the deliverable, with headings and lists. '.repeat(12)}` }
    },
  }
  return runs
}
