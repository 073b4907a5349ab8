import { ConflictError } from '../../domain/errors.js'
import type { AgentType } from '../../domain/agents/catalogue.js'
import {
  decideChangeSchedule,
  decideCreateSchedule,
  decideDeleteSchedule,
  Schedule,
  type OverlapPolicy,
  type ScheduleEvent,
  type ScheduleSpec,
  type ScheduleState,
} from '../../domain/schedules/schedule.js'
import type { Priority } from '../../domain/tasks/task.js'
import { requireSession, type KnownSessions } from '../../queries/require-session.js'
import type { CommandContext } from '../context.js'
import { execute, type Executed, type Issuer } from '../execute.js'
import { checkCatchupWindow, checkTiming } from './fire-times.js'

/** Creating counts the account's schedules first (a limit), on the read side the composition root wires in. */
export interface ManageSchedulesContext extends CommandContext {
  readonly knownSessions: KnownSessions
  readonly countLiveSchedules: (accountId: string) => Promise<number>
}

export interface NewSchedule {
  readonly sessionId: string
  readonly agentType: AgentType
  readonly instruction: string
  readonly title?: string | null | undefined
  readonly priority?: Priority | undefined
  readonly cron?: string | null | undefined
  readonly every?: string | null | undefined
  readonly timezone?: string | undefined
  readonly overlap?: OverlapPolicy | undefined
  readonly catchupWindow?: string | undefined
  readonly paused?: boolean | undefined
}

export const DEFAULT_CATCHUP_WINDOW = '1m'

type Done = Executed<ScheduleState, ScheduleEvent>

/** 404 for a session not the account's, 409 past SCHEDULES_PER_ACCOUNT, 400 naming a field for a timing that cannot fire. */
export async function createSchedule(infra: ManageSchedulesContext, accountId: string, scheduleId: string, input: NewSchedule, issuer: Issuer): Promise<Done> {
  const timing = checkTiming({ cron: input.cron, every: input.every, timezone: input.timezone ?? 'UTC' })
  const catchupWindow = checkCatchupWindow(input.catchupWindow ?? DEFAULT_CATCHUP_WINDOW)
  await requireSession(infra, accountId, input.sessionId)
  const limit = infra.config.SCHEDULES_PER_ACCOUNT
  if ((await infra.countLiveSchedules(accountId)) >= limit) {
    throw new ConflictError(`an account may have at most ${limit} schedules (paused ones count); delete one first`, { code: 'schedule_limit_reached' })
  }
  const spec: ScheduleSpec = {
    sessionId: input.sessionId,
    agentType: input.agentType,
    instruction: input.instruction,
    title: input.title ?? null,
    priority: input.priority ?? 'normal',
    ...timing,
    overlap: input.overlap ?? 'skip',
    catchupWindow,
  }
  const command = { ...spec, paused: input.paused ?? false, now: infra.clock() }
  return execute(infra, Schedule, { accountId, aggregateId: scheduleId }, (state) => decideCreateSchedule(command, state), issuer, { isNew: true })
}

export type ScheduleChanges = Partial<Omit<NewSchedule, 'sessionId'>>

/** Any fields, pausing or resuming; the schedule as it is after. 404 for one deleted or of another account. */
export async function changeSchedule(infra: ManageSchedulesContext, key: { accountId: string; scheduleId: string }, changes: ScheduleChanges, issuer: Issuer): Promise<Done> {
  const aggregateKey = { accountId: key.accountId, aggregateId: key.scheduleId }
  return execute(
    infra,
    Schedule,
    aggregateKey,
    (state) => {
      const current = state.status === 'absent' ? null : state.spec
      const { paused, ...rest } = changes
      const merged = current ? checkedChanges(current, rest) : {}
      return decideChangeSchedule({ changes: merged, ...(paused === undefined ? {} : { paused }), now: infra.clock() }, state)
    },
    issuer,
  )
}

/** The changes with the timing checked as it will be: `cron` set clears `every`, and the reverse. */
function checkedChanges(current: ScheduleSpec, changes: Omit<ScheduleChanges, 'paused'>): Partial<ScheduleSpec> {
  const { agentType, instruction, title, priority, overlap, catchupWindow } = changes
  const cron = changes.every ? null : (changes.cron ?? current.cron)
  const every = changes.cron ? null : (changes.every ?? current.every)
  const timing = checkTiming({ cron, every, timezone: changes.timezone ?? current.timezone })
  return {
    ...(agentType === undefined ? {} : { agentType }),
    ...(instruction === undefined ? {} : { instruction }),
    ...(title === undefined ? {} : { title }),
    ...(priority === undefined ? {} : { priority }),
    ...(overlap === undefined ? {} : { overlap }),
    ...(catchupWindow === undefined ? {} : { catchupWindow: checkCatchupWindow(catchupWindow) }),
    ...timing,
  }
}

export function deleteSchedule(infra: ManageSchedulesContext, key: { accountId: string; scheduleId: string }, issuer: Issuer): Promise<Done> {
  return execute(infra, Schedule, { accountId: key.accountId, aggregateId: key.scheduleId }, decideDeleteSchedule, issuer)
}
