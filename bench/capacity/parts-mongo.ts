/**
 * A part of a task: its share of a projector's bulk write. A projector folds a batch's events
 * per document and writes the batch in one `bulkWrite` (ADR 0065), about 0.15 MongoDB commands
 * per no-op task in a burst: what a task costs there is one upserted document of a bulk of 100.
 */
import { randomUUID } from 'node:crypto'
import { MongoClient } from 'mongodb'
import type { Stoppers } from './servers.js'

const BULK = 100
const INSTRUCTION = 'Overhead brief r1-7: plan the launch posts'

/** µs of CPU per document upserted in bulks of 100, `count` documents in all. */
export async function mongoBulkUpsert(mongoUrl: string, stoppers: Stoppers): Promise<(count: number) => Promise<number>> {
  const client = await new MongoClient(mongoUrl).connect()
  stoppers.add({ stop: () => client.close() })
  const tasks = client.db().collection<{ _id: string }>(`parts_${randomUUID().slice(0, 8)}`)
  const accountId = randomUUID()
  const upsert = () => {
    const task = { accountId, sessionId: accountId, agentType: 'growth-marketer', status: 'pending', instruction: INSTRUCTION, title: null, priority: 'normal', createdAt: new Date(), _seq: 1 }
    return { updateOne: { filter: { _id: randomUUID() }, update: { $set: task }, upsert: true } }
  }
  return async (count) => {
    const started = process.cpuUsage()
    for (let done = 0; done < count; done += BULK) await tasks.bulkWrite(Array.from({ length: BULK }, upsert), { ordered: false })
    const used = process.cpuUsage(started)
    return (used.user + used.system) / count
  }
}
