import { randomUUID } from 'node:crypto'
import { foldHistory, handles, type Projection } from '../../projections/engine/projection.js'
import type { ReadModels } from '../../projections/engine/read-models.js'
import { MAX_INSERTS_PER_BULK } from '../../projections/engine/bulk-limits.js'
import { taskCountsProjection, tasksProjection } from '../../projections/index.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'

/**
 * Stores `count` tasks of `accountId` straight in the active generation of the task read
 * models, with no log behind them: each task's history (`draftsOf(i)`) is folded by the
 * projections' own `evolve` (tasks, and the account's task_counts over all of them) and inserted
 * as the projector would leave it, `_seq` 0 so that any real event applies on top. Task `i` is
 * created at `from + floor(i / perTime) * stepMs` (`perTime` tasks share each creation time). Far faster than appending and projecting on a loaded machine;
 * what it skips (the log, the projector) is measured by bench:projectors and bench:rebuild.
 */
export async function seedTaskDocuments(readModels: ReadModels, accountId: string, count: number, draftsOf: (i: number) => TaskEvent[], from: Date, stepMs: number, perTime = 1): Promise<void> {
  const counts = new Folds(taskCountsProjection)
  const tasks = readModels.collection(tasksProjection)
  let batch: { _id: string; _seq: number }[] = []
  const flush = async () => {
    if (batch.length > 0) await tasks.insertMany(batch, { ordered: false })
    batch = []
  }
  for (let i = 0; i < count; i++) {
    const history = recorded(accountId, draftsOf(i), new Date(from.getTime() + Math.floor(i / perTime) * stepMs))
    batch.push({ ...foldHistory<{ _id: string }>(tasksProjection, history)!, _seq: 0 })
    counts.add(history)
    if (batch.length === MAX_INSERTS_PER_BULK) await flush()
  }
  await flush()
  await counts.insert(readModels)
}

/** The documents a projection folds events into, one per document id, kept in memory until inserted. */
class Folds {
  private readonly docs = new Map<string, { _id: string }>()

  constructor(private readonly projection: Projection) {}

  add(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      if (!handles(this.projection, event.type)) continue
      const id = this.projection.docId(event)
      this.docs.set(id, this.projection.evolve(this.docs.get(id) ?? null, event))
    }
  }

  async insert(readModels: ReadModels): Promise<void> {
    const docs = [...this.docs.values()].map((doc) => ({ ...doc, _seq: 0 }))
    if (docs.length > 0) await readModels.collection(this.projection).insertMany(docs, { ordered: false })
  }
}

function recorded(accountId: string, drafts: readonly TaskEvent[], at: Date): RecordedEvent[] {
  const aggregateId = randomUUID()
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  return drafts.map((draft) => ({
    ...draft,
    id: randomUUID(),
    version: Task.versions[draft.type],
    occurredAt: at.toISOString(),
    accountId,
    aggregateId,
    metadata,
    seq: 0,
    subject: `mats.task.${accountId}.${aggregateId}.${draft.type}`,
  }))
}
