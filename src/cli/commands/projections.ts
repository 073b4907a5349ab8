import { ALL_PROJECTIONS, rebuildProjections, type RebuildProgress } from '../../../projections/index.js'
import type { Infra } from '../../infra/context.js'
import { parse, print, unknownVerb, type OperatorAction } from '../io.js'

/** Checks the arguments first, so that a usage error needs no servers. */
export function projections([verb, ...rest]: string[]): OperatorAction {
  const { values } = parse(rest, {})
  if (verb === 'rebuild') return (infra) => rebuild(infra, values.json)
  if (verb === 'status') return async (infra) => {
    const rows = await status(infra)
    print(values.json, values.json ? { projections: rows } : rows)
  }
  throw unknownVerb('projections', verb, ['rebuild', 'status'])
}

async function rebuild(infra: Infra, json: boolean): Promise<void> {
  const started = Date.now()
  const deps = { js: infra.js, jsm: infra.jsm, readModels: infra.readModels, log: infra.log }
  await rebuildProjections(deps, ALL_PROJECTIONS, json ? (p) => printJsonProgress(p) : throttledProgress())
  if (!json) process.stdout.write(`rebuilt ${ALL_PROJECTIONS.length} read models in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
}

async function status(infra: Infra) {
  const rows = []
  for (const p of ALL_PROJECTIONS) {
    const generation = infra.readModels.generationOf(p)
    const { state } = await infra.jsm.streams.info(p.stream)
    rows.push({ projection: p.name, generation, checkpoint: await infra.readModels.checkpoint(p, generation), stream: p.stream, streamLastSeq: state.last_seq })
  }
  return rows
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
