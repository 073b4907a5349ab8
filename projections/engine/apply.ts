import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type WriteError } from 'mongodb'
import type { RecordedEvent } from '../../src/domain/message.js'
import { isDuplicateKey } from '../../src/infra/mongo/errors.js'
import { chunks, MAX_INSERTS_PER_BULK, MAX_UPDATES_PER_BULK } from './bulk-limits.js'
import { foldOnto, handles, type Projection, type Stored } from './projection.js'

type Doc = { _id: string }
type StoredDoc = Stored<Doc>
type DocCollection = Collection<StoredDoc>

const MAX_CAS_ATTEMPTS = 20
/** Ids per `$in` read. */
const MAX_IDS_PER_READ = 100

interface Folded {
  readonly doc: StoredDoc
  readonly previousSeq: number | null
}

/** Folds the events newer than the document's `_seq` into a write; null when none of them is. */
function fold(projection: Projection, id: string, existing: StoredDoc | null, events: readonly RecordedEvent[]): Folded | null {
  const doc = foldOnto<Doc>(projection, id, existing, events)
  if (!doc || doc._seq === (existing?._seq ?? 0)) return null
  return { doc, previousSeq: existing?._seq ?? null }
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
 * Applies batches of one projection's events to one collection: the batch is folded in
 * memory into one write per document, new documents go in unordered insertMany calls and
 * changed ones in unordered bulk replaces (chunked below what FerretDB can take). Each
 * write is a compare-and-set on `_seq`; a document another writer got to first is redone
 * on its own, which is idempotent. Documents it wrote are remembered (up to `cacheSize`,
 * and until an event settles them), so that the next event of a task needs no read: a
 * projector is usually their only writer, and when it is not, the compare-and-set notices.
 */
export class BatchApplier {
  private readonly cache = new Map<string, StoredDoc>()

  /**
   * `sharedWithCommands`: the command side writes these documents too (inline projections
   * of the live generation), so a document a batch starts has usually been written already.
   */
  constructor(
    private readonly collection: DocCollection,
    private readonly projection: Projection,
    private readonly options: { readonly sharedWithCommands?: boolean; readonly cacheSize?: number } = {},
  ) {}

  async apply(events: readonly RecordedEvent[]): Promise<void> {
    const groups = groupByDoc(this.projection, events)
    if (groups.size === 0) return
    const known = await this.current(this.toRead(groups))
    const inserts: StoredDoc[] = []
    const replaces: Folded[] = []
    for (const [id, group] of groups) {
      const folded = fold(this.projection, id, known.get(id) ?? null, group)
      if (!folded) continue
      if (folded.previousSeq === null) inserts.push(folded.doc)
      else replaces.push(folded)
    }
    const lost = [...(await Promise.all(chunks(inserts, MAX_INSERTS_PER_BULK).map((chunk) => this.insert(chunk)))).flat(), ...(await this.replaceAll(replaces))]
    for (const id of lost) {
      this.cache.delete(id)
      const doc = await applyToDocument(this.collection, this.projection, id, groups.get(id) ?? [])
      if (doc) this.remember(doc)
    }
    this.forgetSettled(groups)
  }

  /** Forgets what it remembered: after an error, another writer may have moved anything. */
  forget(): void {
    this.cache.clear()
  }

  /** Documents whose last event settles them (`settledBy`) leave the cache: their next event, if any, reads them. */
  private forgetSettled(groups: Map<string, RecordedEvent[]>): void {
    const settledBy = this.projection.settledBy ?? []
    if (settledBy.length === 0) return
    for (const [id, group] of groups) if (settledBy.includes(group[group.length - 1]!.type)) this.cache.delete(id)
  }

  /** The documents to read: all but those the batch starts, which are inserted blind (a replay's duplicate insert is redone). */
  private toRead(groups: Map<string, RecordedEvent[]>): string[] {
    const { startedBy } = this.projection
    const blind = (id: string, first: string) => !this.options.sharedWithCommands && !this.cache.has(id) && startedBy.includes(first)
    return [...groups].filter(([id, group]) => !blind(id, group[0]!.type)).map(([id]) => id)
  }

  private async current(ids: string[]): Promise<Map<string, StoredDoc>> {
    const found = new Map<string, StoredDoc>()
    const missing: string[] = []
    for (const id of ids) {
      const cached = this.cache.get(id)
      if (cached) found.set(id, cached)
      else missing.push(id)
    }
    for (const chunk of chunks(missing, MAX_IDS_PER_READ)) {
      const docs = chunk.length === 1 ? [await this.collection.findOne({ _id: chunk[0]! })].filter((d): d is StoredDoc => d !== null) : await this.collection.find({ _id: { $in: chunk } }).toArray()
      for (const doc of docs) found.set(doc._id, doc)
    }
    return found
  }

  /** Inserts new documents; returns the ids another writer had inserted first. */
  private async insert(docs: StoredDoc[]): Promise<string[]> {
    try {
      await this.collection.insertMany(docs, { ordered: false })
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError) || !onlyDuplicateKeys(err)) throw err
      const failed = new Set(writeErrorsOf(err).map((e) => e.index))
      const lost: string[] = []
      docs.forEach((doc, index) => {
        if (failed.has(index)) lost.push(doc._id)
        else this.remember(doc)
      })
      return lost
    }
    for (const doc of docs) this.remember(doc)
    return []
  }

  /** Replaces changed documents chunk by chunk; returns the ids of chunks where a compare-and-set lost. */
  private async replaceAll(replaces: Folded[]): Promise<string[]> {
    const lost: string[] = []
    for (const chunk of chunks(replaces, MAX_UPDATES_PER_BULK)) {
      const ops: AnyBulkWriteOperation<StoredDoc>[] = chunk.map(({ doc, previousSeq }) => ({
        replaceOne: { filter: { _id: doc._id, _seq: previousSeq as number }, replacement: doc },
      }))
      const result = await this.collection.bulkWrite(ops, { ordered: false })
      // Which replace matched nothing is not reported: redo the chunk, a no-op where it held.
      if (result.matchedCount === chunk.length) for (const { doc } of chunk) this.remember(doc)
      else lost.push(...chunk.map(({ doc }) => doc._id))
    }
    return lost
  }

  private remember(doc: StoredDoc): void {
    this.cache.delete(doc._id)
    this.cache.set(doc._id, doc)
    if (this.cache.size > (this.options.cacheSize ?? 5000)) this.cache.delete(this.cache.keys().next().value as string)
  }
}

function writeErrorsOf(err: MongoBulkWriteError): readonly WriteError[] {
  const { writeErrors } = err
  return Array.isArray(writeErrors) ? writeErrors : [writeErrors as WriteError]
}

function onlyDuplicateKeys(err: MongoBulkWriteError): boolean {
  return writeErrorsOf(err).every(isDuplicateKey)
}

/**
 * Brings one document up to date with `events` (which may include events it already
 * has) and returns it as stored; null when none of the events makes a document. Used for
 * contended writes and by the command side for inline projections. Given `follows`, the
 * events are those after that sequence: a document not at it is returned as it is.
 */
export async function applyToDocument(collection: DocCollection, projection: Projection, id: string, events: readonly RecordedEvent[], follows?: number): Promise<StoredDoc | null> {
  const relevant = events.filter((e) => handles(projection, e.type) && projection.docId(e) === id)
  if (relevant.length === 0) return null
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const existing = await collection.findOne({ _id: id })
    if (follows !== undefined && (existing?._seq ?? 0) !== follows) return existing
    const folded = fold(projection, id, existing, relevant)
    if (!folded) return existing
    if (await compareAndSet(collection, folded)) return folded.doc
  }
  throw new Error(`projection ${projection.name}: document ${id} kept changing under ${MAX_CAS_ATTEMPTS} attempts`)
}

async function compareAndSet(collection: DocCollection, { doc, previousSeq }: Folded): Promise<boolean> {
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
