/**
 * `npm run bench:capacity`: what one deployment serves when tasks are agent runs, not no-ops.
 * Each target is a module of its own in this folder exporting `main()`; pick them with
 * TARGETS (or arguments), in the order given:
 *
 *   TARGETS=dispatch,runs npm run bench:capacity      npm run bench:capacity -- fairness
 *
 * Every mats process runs as a child of this one (service-process.ts), so that the clients'
 * work and the fake model server are not counted as its CPU or memory.
 */
import { cpus, loadavg } from 'node:os'

type Target = () => Promise<void>

const TARGETS: Record<string, () => Promise<Target>> = {
  runs: async () => (await import('./runs.js')).main,
  dispatch: async () => (await import('./dispatch.js')).main,
  fairness: async () => (await import('./fairness.js')).main,
  'waiting-clients': async () => (await import('./waiting-clients.js')).main,
  soak: async () => (await import('./soak.js')).main,
  messages: async () => (await import('./message-trace.js')).main,
  parts: async () => (await import('./parts.js')).main,
}
const DEFAULT_TARGETS = ['dispatch', 'runs', 'fairness']

function chosen(): string[] {
  const named = [...(process.env.TARGETS ?? '').split(','), ...process.argv.slice(2)].map((t) => t.trim()).filter((t) => t !== '')
  const targets = named.length > 0 ? named : DEFAULT_TARGETS
  const unknown = targets.filter((t) => !(t in TARGETS))
  if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(', ')}: pick from ${Object.keys(TARGETS).join(', ')}`)
  return targets
}

const targets = chosen()
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
process.stdout.write(`mats capacity benchmark, ${new Date().toISOString()}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, Node ${process.version}, load ${load()}; targets ${targets.join(', ')}\n`)
for (const name of targets) {
  const run = await TARGETS[name]!()
  await run()
  process.stdout.write(`  (${name} done at ${new Date().toISOString()}, load ${load()})\n`)
}
