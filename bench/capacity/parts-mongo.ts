/**
 * A part of a task: its share of a projector's bulk write. A projector folds a batch's events
 * per document and writes the batch in one `bulkWrite` (ADR 0065). In a burst of 500 the
 * projectors sent about 0.15 MongoDB commands per no-op task (bulk writes and checkpoints,
 * counted with `monitorCommands`), about 7 tasks a command: a task costs one document of a bulk of 7.
 */
import { randomUUID } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { cpuMicrosSince } from './parts-cpu.js'
import { BURST_BRIEF } from './parts-task.js'
import type { Stoppers } from './servers.js'

const BULK = 7

/** µs of CPU per document upserted in bulks of 7, `count` documents in all. */
export async function mongoBulkUpsert(mongoUrl: string, stoppers: Stoppers): Promise<(count: number) => Promise<number>> {
  const client = await new MongoClient(mongoUrl).connect()
  stoppers.add({ stop: () => client.close() })
  const tasks = client.db().collection<{ _id: string }>(`parts_${randomUUID().slice(0, 8)}`)
  const accountId = randomUUID()
  const upsert = () => {
    const task = { accountId, sessionId: accountId, agentType: 'growth-marketer', status: 'pending', instruction: BURST_BRIEF, title: null, priority: 'normal', createdAt: new Date(), _seq: 1 }
    return { updateOne: { filter: { _id: randomUUID() }, update: { $set: task }, upsert: true } }
  }
  return async (count) => {
    const started = process.cpuUsage()
    for (let done = 0; done < count; done += BULK) await tasks.bulkWrite(Array.from({ length: Math.min(BULK, count - done) }, upsert), { ordered: false })
    return cpuMicrosSince(started) / count
  }
}
