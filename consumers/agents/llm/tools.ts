import { Type, type Static, type TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { DomainError } from '../../../src/domain/errors.js'
import { SPECIALIST_TYPES, type AgentType } from '../../../src/domain/agents/catalogue.js'
import { MAX_FACT_LENGTH } from '../../../src/domain/sessions/session.js'
import type { DelegationOutcome, RecordedAction, RunEffects } from '../provider.js'
import type { ToolCall, ToolSpec } from './chat.js'

const ProposeAction = Type.Object(
  {
    platform: Type.String({ minLength: 1, maxLength: 60, description: 'Where the change would happen, e.g. linkedin, instagram, google-ads, meta-ads, mailchimp, hubspot, website' }),
    action: Type.String({ minLength: 1, maxLength: 80, description: 'The kind of change in a few words, e.g. "publish post", "raise daily budget", "send email campaign"' }),
    summary: Type.String({ minLength: 1, maxLength: 300, description: 'One sentence a person can approve or reject' }),
    content: Type.Optional(Type.String({ maxLength: 8000, description: 'The draft itself: post text, email body, new budget and targeting...' })),
  },
  { additionalProperties: false },
)

const RememberFact = Type.Object(
  {
    fact: Type.String({ minLength: 3, maxLength: MAX_FACT_LENGTH, description: 'One durable fact about the company, stated plainly' }),
  },
  { additionalProperties: false },
)

const DelegateToSpecialist = Type.Object(
  {
    agentType: Type.Unsafe<AgentType>({ type: 'string', enum: [...SPECIALIST_TYPES], description: 'The specialist to hand this part to' }),
    instruction: Type.String({ minLength: 4, maxLength: 4000, description: 'A self-contained brief for the specialist: goal, scope, constraints and what to deliver' }),
  },
  { additionalProperties: false },
)

/** What a run collects from its tool calls, for the result and the session. */
export interface RunRecord {
  readonly actions: RecordedAction[]
  readonly facts: string[]
  readonly delegations: DelegationOutcome[]
  /** Calls accepted so far, finished or not, to hold each run to its limits. */
  readonly accepted: { proposals: number; delegations: number; facts: number }
}

export const emptyRunRecord = (): RunRecord => ({ actions: [], facts: [], delegations: [], accepted: { proposals: 0, delegations: 0, facts: 0 } })

/** One run's limits: each delegation is an agent run of its own, and the result must stay readable. */
export const RUN_LIMITS = { proposals: 25, delegations: 9, facts: 20 } as const

function accept(record: RunRecord, kind: keyof RunRecord['accepted'], what: string): void {
  if (record.accepted[kind] >= RUN_LIMITS[kind]) throw new ToolRefusal(`this run already ${what} ${RUN_LIMITS[kind]} times, its limit; go on without`)
  record.accepted[kind]++
}

export interface ToolOutcome {
  readonly content: string
  readonly isError: boolean
  /** The call itself was wrong (unknown tool, arguments that are not valid JSON or break the schema). */
  readonly malformed: boolean
}

interface Tool {
  readonly spec: ToolSpec
  /** Checks the arguments against the tool's schema, then runs it. */
  call(args: unknown, effects: RunEffects, record: RunRecord): Promise<ToolOutcome>
}

type Handler<S extends TSchema> = (args: Static<S>, effects: RunEffects, record: RunRecord) => Promise<string>

const tool = <S extends TSchema>(name: string, description: string, schema: S, handle: Handler<S>): Tool => ({
  spec: { name, description, parameters: schema as unknown as Record<string, unknown> },
  async call(args, effects, record) {
    if (!Value.Check(schema, args)) return malformed(`invalid arguments for ${name}: ${problemsWith(schema, args).join('; ')}`)
    try {
      return { content: await handle(args, effects, record), isError: false, malformed: false }
    } catch (err) {
      if (err instanceof ToolRefusal || err instanceof DomainError) return { content: err.message, isError: true, malformed: false }
      throw err
    }
  },
})

const proposeAction = tool(
  'propose_action',
  "Propose one write action on a live platform (publish a post, change a budget, send an email...). Nothing changes by calling this: the session's autonomy setting decides whether it is kept as a draft, awaits approval, or is executed. Returns what became of it.",
  ProposeAction,
  async (args, effects, record) => {
    accept(record, 'proposals', 'proposed an action')
    // Platforms are names like `linkedin`: one spelling, so that a connector is found by it.
    const recorded = await effects.proposeAction({ platform: args.platform.trim().toLowerCase(), action: args.action, summary: args.summary, content: args.content ?? null })
    record.actions.push(recorded)
    return `Recorded as action ${recorded.actionId}: ${recorded.status}${recorded.note ? ` (${recorded.note})` : ''}.`
  },
)

const rememberFact = tool(
  'remember_fact',
  'Save one durable fact about the company (e.g. its pricing model, main competitor, brand voice) that later tasks in this workspace should know. Not for task-specific notes.',
  RememberFact,
  async (args, _effects, record) => {
    accept(record, 'facts', 'saved a fact')
    record.facts.push(args.fact)
    return 'Saved; it will be added to the workspace when this task completes.'
  },
)

const delegateToSpecialist = tool(
  'delegate_to_specialist',
  'Hand one part of the brief to a specialist agent, who runs it as a task of its own and returns its deliverable. Call it several times in one turn for independent parts: they run in parallel.',
  DelegateToSpecialist,
  async (args, effects, record) => {
    if (!effects.delegate) throw new ToolRefusal('only the supervisor can delegate')
    accept(record, 'delegations', 'delegated')
    const outcome = await effects.delegate({ agentType: args.agentType, instruction: args.instruction })
    record.delegations.push(outcome)
    if (outcome.status === 'failed') throw new ToolRefusal(`the ${outcome.agentType} task ${outcome.taskId} failed: ${outcome.error ?? 'no reason given'}`)
    return `Task ${outcome.taskId} (${outcome.agentType}) completed. Its deliverable:\n\n${outcome.output ?? ''}`
  },
)

/** A tool declined the call for a reason the model can act on (not a malformed call). */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal'
}

/** The tools of one agent: every agent proposes actions and learns facts; the supervisor also delegates. */
export function toolsFor(isSupervisor: boolean): readonly Tool[] {
  return isSupervisor ? [proposeAction, rememberFact, delegateToSpecialist] : [proposeAction, rememberFact]
}

/** Runs one tool call; anything the model got wrong comes back to it as an error it can correct. */
export async function callTool(tools: readonly Tool[], call: ToolCall, effects: RunEffects, record: RunRecord): Promise<ToolOutcome> {
  const found = tools.find((candidate) => candidate.spec.name === call.name)
  if (!found) return malformed(`there is no tool named ${JSON.stringify(call.name)}; the tools are ${tools.map((t) => t.spec.name).join(', ')}`)
  let args: unknown
  try {
    args = JSON.parse(call.arguments === '' ? '{}' : call.arguments)
  } catch {
    return malformed(`the arguments of ${call.name} are not valid JSON; send one JSON object`)
  }
  return found.call(args, effects, record)
}

/** At most five problems, in the model's terms. */
function problemsWith(schema: TSchema, args: unknown): string[] {
  // An unknown property is reported twice (`schema is false` at it, additionalProperties at its object): keep the latter.
  return [...Value.Errors(schema, args)]
    .filter((e) => e.keyword !== 'boolean')
    .slice(0, 5)
    .map(describeProblem)
}

function malformed(content: string): ToolOutcome {
  return { content, isError: true, malformed: true }
}

function describeProblem(error: { instancePath: string; message: string; keyword: string; params: unknown }): string {
  const at = error.instancePath === '' ? 'arguments' : error.instancePath.slice(1).replaceAll('/', '.')
  const extra = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperties?: unknown }).additionalProperties)})` : ''
  return `${at}: ${error.message}${extra}`
}
