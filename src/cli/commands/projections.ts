import { ALL_PROJECTIONS, rebuildProjections, type RebuildProgress } from '../../../projections/index.js'
import type { Stopped } from '../../../projections/engine/read-models.js'
import type { AppContext } from '../../app-context.js'
import { PoisonMessages } from '../../infra/mongo/poison-messages.js'
import { parse, print, unknownVerb, type OperatorAction } from '../io.js'

/** Checks the arguments first, so that a usage error needs no servers. */
export function projections([verb, ...rest]: string[]): OperatorAction {
  const { values } = parse(rest, {})
  if (verb === 'rebuild') return (infra) => rebuild(infra, values.json)
  if (verb === 'status') return (infra) => status(infra, values.json)
  throw unknownVerb('projections', verb, ['rebuild', 'status'])
}

async function rebuild(infra: AppContext, json: boolean): Promise<void> {
  const started = Date.now()
  const deps = { js: infra.js, jsm: infra.jsm, link: infra.link, readModels: infra.readModels, log: infra.log }
  await rebuildProjections(deps, ALL_PROJECTIONS, json ? (p) => printJsonProgress(p) : throttledProgress())
  if (!json) process.stdout.write(`rebuilt ${ALL_PROJECTIONS.length} read models in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
}

const POISON_SHOWN = 5

/**
 * Each read model's position, and whether it stopped on an event it cannot apply; then
 * the messages consumers skipped or terminated because they are not events.
 */
async function status(infra: AppContext, json: boolean): Promise<void> {
  const rows = []
  for (const p of ALL_PROJECTIONS) {
    const generation = infra.readModels.generationOf(p)
    const { state } = await infra.jsm.streams.info(p.stream)
    const stopped = infra.readModels.stoppedOf(p).map(({ partition, seq, subject, type, error, at }) => ({ partition, seq, subject, type, error, at }))
    const checkpoint = await infra.readModels.checkpoint(p, generation)
    const row = { projection: p.name, generation, checkpoint, stream: p.stream, streamLastSeq: state.last_seq }
    rows.push(json ? { ...row, state: stopped.length ? 'stopped' : 'running', stopped } : { ...row, state: stopped.length ? stopped.map(describeStop).join('; ') : 'running' })
  }
  const poison = new PoisonMessages(infra.db, infra.log)
  const [count, latest] = await Promise.all([poison.count(), poison.latest(POISON_SHOWN)])
  const poisonMessages = latest.map(({ stream, seq, subject, reason, seenBy }) => ({ stream, seq, subject, reason, seenBy }))
  if (json) return print(true, { projections: rows, poisonMessages: { count, latest: poisonMessages } })
  print(false, [...rows, { poisonMessages: count, ...Object.fromEntries(poisonMessages.map((m, i) => [`poison ${i + 1}`, `${m.stream} #${m.seq} ${m.subject}: ${m.reason}`])) }])
}

function describeStop({ seq, type, subject, error }: Omit<Stopped, 'generation'>): string {
  return `stopped at #${seq} (${type} on ${subject}): ${error}`
}

function printJsonProgress(progress: RebuildProgress): void {
  if (progress.phase !== 'replaying') process.stdout.write(`${JSON.stringify(progress)}\n`)
}

/** One line per projection per second while replaying, and one per phase change. */
function throttledProgress(): (progress: RebuildProgress) => void {
  let lastLine = 0
  return (p) => {
    const now = Date.now()
    if (p.phase === 'replaying' && now - lastLine < 1000 && p.applied < p.last) return
    lastLine = now
    const percent = p.last === 0 ? 100 : Math.floor((p.applied / p.last) * 100)
    process.stdout.write(`${p.projection.padEnd(10)} ${p.phase.padEnd(9)} ${p.applied}/${p.last} (${percent}%)\n`)
  }
}
