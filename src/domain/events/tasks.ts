import { Type } from 'typebox'
import { ACTION_STATUSES } from '../actions/proposed-action.js'
import { AGENT_TYPES } from '../agents/catalogue.js'
import { FAILURE_REASONS, PRIORITIES, TASK_TYPES } from '../tasks/task.js'
import { Micros, Nullable, Sha256Hex, Uuid, UuidOf } from './common.js'
import { ProposedAction } from './proposed-action.js'

export const Usage = Type.Object({
  provider: Type.String({ description: 'Agent provider (LLM_PROVIDER): offline, openai or anthropic.' }),
  model: Type.String({ description: 'Model (`mats-offline-1` for the offline provider, else the model the agent ran on).' }),
  inputTokens: Type.Integer({
    minimum: 0,
    description: "Summed over the run's model calls as the provider reports them (Anthropic cache reads and writes included); characters / 4 when none are reported.",
  }),
  outputTokens: Type.Integer({ minimum: 0 }),
})

/** What the spend read model needs to move the task's reservation into its actual cost. */
const Billing = {
  billingMonth: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: "The UTC month of the task's creation, which it is billed to." }),
  reservedMicros: Micros,
}
/** On terminal events: whose run the cost is, for spend by agent (GET /v1/usage); absent on tasks that ended before it existed. */
const SpentBy = {
  agentType: Type.Optional(Type.Enum([...AGENT_TYPES], { description: "The task's agent, as in TaskCreated. Missing on tasks that ended before it existed." })),
}
const Instruction = (description?: string) => Type.String({ minLength: 4, maxLength: 4000, ...(description ? { description } : {}) })

export const TaskCreatedData = Type.Object({
  sessionId: Uuid,
  agentType: Type.Enum([...AGENT_TYPES]),
  taskType: Type.Enum([...TASK_TYPES], {
    description: "instruction = from a caller's brief; delegated = a part of a brief the supervisor handed to a specialist (created by the worker, parentTaskId set).",
  }),
  instruction: Instruction(),
  title: Nullable(Type.String({ maxLength: 200 })),
  priority: Type.Enum([...PRIORITIES]),
  fingerprint: Sha256Hex("SHA-256 of session, agent and normalized instruction; identical briefs share it. A schedule's task has its tick's (schedule and scheduledFor)."),
  parentTaskId: Nullable(Type.String({ format: 'uuid' }), { description: 'For a delegated task, the supervisor task it is part of; else null.' }),
  // Optional in v1 for good: absent on tasks created before it was recorded (ADR 0050), and on a schedule's tasks, which take no entry (ADR 0056).
  identityRevision: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "Internal: the revision of the task's identical-task entry (KV bucket mats_pending_tasks) its creation took, so that its claim or cancellation removes exactly that entry without reading it first. Absent on a schedule's task: it takes no entry (no other task has its tick's fingerprint).",
    }),
  ),
  // Optional in v1 for good: written only on a re-run (POST /v1/tasks/{taskId}/rerun).
  rerunOf: Type.Optional(
    UuidOf('On a re-run only: the task it repeats, whose TaskRerunCreated (subject mats.reruns.<accountId>.<that task>.TaskRerunCreated) was stored with this event, atomically.'),
  ),
  // Optional in v1 for good: written only on a schedule's tick (ADR 0039).
  scheduleId: Type.Optional(
    UuidOf("On a schedule's task only: the schedule whose tick created it; its ScheduleFired (subject mats.schedule.<accountId>.<scheduleId>.ScheduleFired) was stored with this event, atomically."),
  ),
  scheduledFor: Type.Optional(Type.String({ format: 'date-time', description: "On a schedule's task only: the tick it was created for." })),
  ...Billing,
})
export const TaskStartedData = Type.Object({
  workerId: Type.String({ description: 'The worker process that claimed the task, `<hostname>:<pid>:<random>`.' }),
})
export const TaskActionProposedData = Type.Object({
  ...ProposedAction,
  actionId: Uuid,
  status: Type.Enum([...ACTION_STATUSES], {
    description:
      "What the session's autonomy made of the proposal. draft: the session is draft-only; kept as a draft, nobody is asked. pending_approval: it awaits a person's approval before anything changes. not_executed: the session is autonomous, but no connector for the platform is reachable from this deployment, so nothing was changed. executed: an autonomous session's connector made the change.",
  }),
  note: Nullable(Type.String(), { description: "Why it was not executed, or the platform's reference when it was; else null." }),
})
export const TaskDelegatedData = Type.Object({
  childTaskId: UuidOf('The delegated task (taskType delegated, parentTaskId this task).'),
  agentType: Type.Enum([...AGENT_TYPES], { description: 'The specialist; any agent but the supervisor (growth-marketer).' }),
  instruction: Instruction("The brief the supervisor wrote for the specialist; also the child's instruction."),
})
export const TaskCancellationRequestedData = Type.Object({
  requestedBy: Nullable(Type.String(), { description: 'The id of the API key that asked; null for an operator.' }),
})
export const TaskCompletedData = Type.Object({
  result: Type.String({ description: 'The deliverable, Markdown.' }),
  usage: Usage,
  costMicros: Micros,
  // Optional in v1 for good: tasks completed before it existed lack it (see index.ts).
  learnedFacts: Type.Optional(
    Type.Array(Type.String({ minLength: 3, maxLength: 300 }), {
      description:
        'Durable facts about the company the run saved (remember_fact); [] if none. The worker then appends the new ones to the session as SessionFactLearned. Missing on tasks completed before it existed: read it as [].',
    }),
  ),
  ...Billing,
  ...SpentBy,
})
export const TaskFailedData = Type.Object({
  error: Type.String(),
  reason: Type.Enum([...FAILURE_REASONS], {
    description:
      'agent_error: the agent could not produce a result (e.g. it kept sending malformed tool calls). provider_error: the language model could not be reached or refused, after retries, sent a reply that cannot be read, or empty replies 3 times in a row. step_limit: the run used all its steps. timeout: it used all its time. parent_ended: a delegated run whose supervising task ended first. worker_lost: its worker stopped responding and another worker failed it. worker_shutdown: its worker stopped and the grace period ran out. cancelled: the caller cancelled it (POST /v1/tasks/{taskId}/cancel), or its supervising task; the error begins with "cancelled".',
  }),
  usage: Nullable(Usage, { description: 'null when the run got no reply from a model (offline provider, worker_lost, every call failed).' }),
  costMicros: Type.Integer({
    minimum: 0,
    description: "What the run spent before it failed (a language-model run's tokens); 0 for the offline provider and worker_lost.",
  }),
  ...Billing,
  ...SpentBy,
})
export const TaskRerunCreatedData = Type.Object({
  rerunTaskId: UuidOf('The new task that repeats this one (its TaskCreated carries rerunOf, and was stored with this event, atomically).'),
})
