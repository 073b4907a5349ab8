import { ALL_PROJECTIONS, rebuildProjections, type RebuildProgress } from '../../../projections/index.js'
import type { Infra } from '../../infra/context.js'
import { parse, print, UsageError } from '../io.js'

export const PROJECTIONS_USAGE = `mats projections rebuild [--json]
mats projections status [--json]`

export async function projections(infra: Infra, [verb, ...rest]: string[]): Promise<void> {
  const { values } = parse(rest, {})
  const deps = { js: infra.js, jsm: infra.jsm, readModels: infra.readModels, log: infra.log }
  switch (verb) {
    case 'rebuild': {
      const started = Date.now()
      await rebuildProjections(deps, ALL_PROJECTIONS, values.json ? (p) => printJsonProgress(p) : throttledProgress())
      if (!values.json) process.stdout.write(`rebuilt ${ALL_PROJECTIONS.length} read models in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
      return
    }
    case 'status': {
      const rows = []
      for (const p of ALL_PROJECTIONS) {
        const generation = infra.readModels.generationOf(p)
        const { state } = await infra.jsm.streams.info(p.stream)
        rows.push({ projection: p.name, generation, checkpoint: await infra.readModels.checkpoint(p, generation), stream: p.stream, streamLastSeq: state.last_seq })
      }
      return print(values.json, values.json ? { projections: rows } : rows)
    }
    default:
      throw new UsageError(`unknown command: projections ${verb ?? ''}`)
  }
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
