import type { RecordedEvent } from '../../src/domain/message.js'
import type { AppContext } from '../../src/app-context.js'
import { eventSubjectParts } from '../../src/infra/nats/subjects.js'
import { streamEvents } from './event-log.js'

/** Every event of the MATS_TASKS stream, grouped by task, in log order. */
export async function taskHistories(infra: AppContext): Promise<Map<string, RecordedEvent[]>> {
  const byTask = new Map<string, RecordedEvent[]>()
  for (const event of await streamEvents(infra, 'MATS_TASKS')) {
    // The stream also holds decisions on actions, which are not task events.
    if (eventSubjectParts(event.subject).category !== 'task') continue
    const history = byTask.get(event.aggregateId)
    if (history) history.push(event)
    else byTask.set(event.aggregateId, [event])
  }
  return byTask
}

const TERMINAL = new Set(['TaskCompleted', 'TaskFailed'])
/** What a run records while it runs: only between TaskStarted and the terminal event. */
const RUN_RECORDS = new Set(['TaskActionProposed', 'TaskDelegated'])

/** Invariant 3: one TaskCreated first, at most one TaskStarted, at most one terminal event, nothing after it; a run's records inside its run. */
export function lifecycleViolations(histories: Map<string, RecordedEvent[]>): string[] {
  const problems: string[] = []
  for (const [taskId, events] of histories) {
    const types = events.map((e) => e.type)
    const count = (type: string) => types.filter((t) => t === type).length
    if (types[0] !== 'TaskCreated' || count('TaskCreated') !== 1) problems.push(`${taskId}: ${types.join(',')} does not start with exactly one TaskCreated`)
    if (count('TaskStarted') > 1) problems.push(`${taskId}: started ${count('TaskStarted')} times`)
    const terminal = types.findIndex((t) => TERMINAL.has(t))
    if (terminal !== -1 && terminal !== types.length - 1) problems.push(`${taskId}: events after ${types[terminal]}`)
    if (types.filter((t) => TERMINAL.has(t)).length > 1) problems.push(`${taskId}: more than one terminal event`)
    const started = types.indexOf('TaskStarted')
    types.forEach((type, i) => {
      if (RUN_RECORDS.has(type) && (started === -1 || i < started)) problems.push(`${taskId}: ${type} before TaskStarted`)
    })
  }
  return problems
}
