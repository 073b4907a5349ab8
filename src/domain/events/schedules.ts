import { Type } from 'typebox'
import { AGENT_TYPES } from '../agents/catalogue.js'
import { OVERLAP_POLICIES, SKIP_REASONS } from '../schedules/schedule.js'
import { PRIORITIES } from '../tasks/task.js'
import { Nullable, Uuid, UuidOf } from './common.js'

const Instant = (description: string) => Type.String({ format: 'date-time', description })
const Duration = (description: string) => Type.String({ pattern: '^[1-9][0-9]*[smhd]$', description })

/** What a schedule creates and when: every field of ScheduleCreated and ScheduleChanged. */
const Spec = {
  sessionId: Uuid,
  agentType: Type.Enum([...AGENT_TYPES]),
  instruction: Type.String({ minLength: 4, maxLength: 4000 }),
  title: Nullable(Type.String({ maxLength: 200 })),
  priority: Type.Enum([...PRIORITIES]),
  cron: Nullable(Type.String({ description: 'A cron expression of 5 or 6 fields (seconds first), read in `timezone`; null when `every` is set.' })),
  every: Nullable(Duration('An interval (`90s`, `15m`, `1h`, `1d`), ticks aligned on the Unix epoch; null when `cron` is set.')),
  timezone: Type.String({ description: 'The IANA time zone `cron` is read in.' }),
  overlap: Type.Enum([...OVERLAP_POLICIES], { description: "skip: no new task while the schedule's previous one is pending or running; allow: a task each tick." }),
  catchupWindow: Duration('How late a tick may still fire, after a time when no scheduler ran; older ticks are recorded as skipped.'),
  activeFrom: Instant('Ticks at or before this instant are not due: the creation, the change of timing or the resumption.'),
}

export const ScheduleCreatedData = Type.Object({ ...Spec, paused: Type.Boolean() })
export const ScheduleChangedData = Type.Object(Spec, { description: 'The whole schedule after the change.' })
export const SchedulePausedData = Type.Object({})
export const ScheduleResumedData = Type.Object({ activeFrom: Spec.activeFrom })
export const ScheduleDeletedData = Type.Object({})
export const ScheduleFiredData = Type.Object({
  scheduledFor: Instant('The tick: when the task was due.'),
  taskId: UuidOf('The task the tick created (its TaskCreated carries scheduleId and scheduledFor), stored with this event, atomically.'),
})
export const ScheduleTickSkippedData = Type.Object({
  scheduledFor: Instant('The tick skipped; for outside_catchup_window, the latest of the ticks missed.'),
  reason: Type.Enum([...SKIP_REASONS], {
    description:
      "overlap: the schedule's previous task was still pending or running (overlap skip). budget_exhausted: the account's monthly budget was spent. rate_limited: the account's scheduled ticks went past their rate. session_missing: the session is no longer there. outside_catchup_window: the tick was missed (no scheduler ran) for longer than catchupWindow.",
  }),
  missedTicks: Type.Optional(Type.Integer({ minimum: 1, description: 'For outside_catchup_window: how many ticks this one record covers.' })),
})
