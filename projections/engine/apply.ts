import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb'
import type { RecordedEvent } from '../../src/domain/message.js'
import { isDuplicateKey } from '../../src/infra/mongo/errors.js'
import { handles, type Projection, type Stored } from './projection.js'

type Doc = { _id: string }
type StoredDoc = Stored<Doc>

const MAX_CAS_ATTEMPTS = 20

interface Folded {
  readonly doc: StoredDoc
  readonly previousSeq: number | null
}

/** Folds the events newer than the document's `_seq`; null when none of them is. */
function fold(projection: Projection, existing: StoredDoc | null, events: readonly RecordedEvent[]): Folded | null {
  let seq = existing?._seq ?? 0
  let doc: Doc | null = existing ? stripSeq(existing) : null
  for (const event of events) {
    if (event.seq <= seq) continue
    doc = projection.evolve(doc, event)
    seq = event.seq
  }
  if (!doc || seq === (existing?._seq ?? 0)) return null
  return { doc: { ...doc, _seq: seq }, previousSeq: existing?._seq ?? null }
}

function stripSeq({ _seq: _ignored, ...doc }: StoredDoc): Doc {
  return doc
}

function writeFor(folded: Folded): AnyBulkWriteOperation<StoredDoc> {
  const { doc, previousSeq } = folded
  if (previousSeq === null) return { insertOne: { document: doc } }
  return { replaceOne: { filter: { _id: doc._id, _seq: previousSeq }, replacement: doc } }
}

function groupByDoc(projection: Projection, events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const groups = new Map<string, RecordedEvent[]>()
  for (const event of events) {
    if (!handles(projection, event.type)) continue
    const id = projection.docId(event)
    const group = groups.get(id)
    if (group) group.push(event)
    else groups.set(id, [event])
  }
  return groups
}

/**
 * Applies a batch (in stream order) with one read and one unordered bulk write. Each write
 * is a compare-and-set on `_seq`; when another writer got there first, the affected
 * documents are redone one by one, which is idempotent.
 */
export async function applyEvents(collection: Collection<StoredDoc>, projection: Projection, events: readonly RecordedEvent[]): Promise<void> {
  const groups = groupByDoc(projection, events)
  if (groups.size === 0) return
  const byId = await readDocuments(collection, [...groups.keys()])
  const writes: Folded[] = []
  for (const [id, group] of groups) {
    const folded = fold(projection, byId.get(id) ?? null, group)
    if (folded) writes.push(folded)
  }
  if (writes.length === 0) return
  const expectedReplaced = writes.filter((w) => w.previousSeq !== null).length
  try {
    const result = await collection.bulkWrite(writes.map(writeFor), { ordered: false })
    if (result.matchedCount === expectedReplaced) return
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError) || !onlyDuplicateKeys(err)) throw err
  }
  for (const folded of writes) await applyToDocument(collection, projection, folded.doc._id, groups.get(folded.doc._id) ?? [])
}

/**
 * A live event touches one or two documents: reading them by `_id` uses the index on
 * every backend (FerretDB scans for `$in`); a replayed batch reads all at once.
 */
const POINT_READS_UP_TO = 16

async function readDocuments(collection: Collection<StoredDoc>, ids: string[]): Promise<Map<string, StoredDoc>> {
  const docs = ids.length <= POINT_READS_UP_TO
    ? (await Promise.all(ids.map((_id) => collection.findOne({ _id })))).filter((d): d is StoredDoc => d !== null)
    : await collection.find({ _id: { $in: ids } }).toArray()
  return new Map(docs.map((doc) => [doc._id, doc]))
}

function onlyDuplicateKeys(err: MongoBulkWriteError): boolean {
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]
  return errors.every(isDuplicateKey)
}

/**
 * Brings one document up to date with `events` (which may include events it already
 * has). Used for contended batches and by the command side for inline projections.
 */
export async function applyToDocument(
  collection: Collection<StoredDoc>,
  projection: Projection,
  id: string,
  events: readonly RecordedEvent[],
): Promise<void> {
  const relevant = events.filter((e) => handles(projection, e.type) && projection.docId(e) === id)
  if (relevant.length === 0) return
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const folded = fold(projection, await collection.findOne({ _id: id }), relevant)
    if (!folded) return
    if (await compareAndSet(collection, folded)) return
  }
  throw new Error(`projection ${projection.name}: document ${id} kept changing under ${MAX_CAS_ATTEMPTS} attempts`)
}

async function compareAndSet(collection: Collection<StoredDoc>, { doc, previousSeq }: Folded): Promise<boolean> {
  if (previousSeq !== null) {
    const result = await collection.replaceOne({ _id: doc._id, _seq: previousSeq }, doc)
    return result.matchedCount === 1
  }
  try {
    await collection.insertOne(doc)
    return true
  } catch (err) {
    if (isDuplicateKey(err)) return false
    throw err
  }
}
