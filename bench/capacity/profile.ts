/**
 * Where a V8 CPU profile (`node --cpu-prof`) spent its samples: self time summed by where the
 * code lives (a package under node_modules, a folder of mats, Node's internals, GC, idle), so
 * that a run says what dominates without opening a profiler.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

export function placeOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  const inModules = url.lastIndexOf('node_modules/')
  if (inModules >= 0) {
    const rest = url.slice(inModules + 'node_modules/'.length).split('/')
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url)
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`
  const mats = url.match(/\/(src|consumers|projections|bench)\/(.+)\/[^/]+$/)
  if (mats) return `mats ${mats[1]}/${mats[2]}`
  return url
}

/** A function as the summaries name it: its name and the last two parts of its file's path. */
function functionOf(frame: ProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}`
}

/** Amounts (CPU time, bytes) summed by where the code lives and by function. */
class Tally {
  readonly places = new Map<string, number>()
  readonly functions = new Map<string, number>()
  all = 0

  add(frame: ProfileNode['callFrame'], amount: number): void {
    const place = placeOf(frame)
    const name = functionOf(frame)
    this.places.set(place, (this.places.get(place) ?? 0) + amount)
    this.functions.set(name, (this.functions.get(name) ?? 0) + amount)
    this.all += amount
  }
}

/** `share %  name` lines for the biggest entries of `amounts` (all but `skip`), at most `limit`, none under `floor` of `total`. */
function shareLines(amounts: ReadonlyMap<string, number>, total: number, limit: number, floor = 0, skip = '(idle)'): string[] {
  return [...amounts]
    .filter(([name, amount]) => !name.startsWith(skip) && amount / total >= floor)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, amount]) => `    ${((amount / total) * 100).toFixed(1).padStart(5)} %  ${name}`)
}

/** Lines of `place  share %` for every profile in `dir`, biggest first, down to 1 %. */
export async function summarizeProfiles(dir: string, whose = 'the mats process'): Promise<string[]> {
  const tally = new Tally()
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
    profile.samples.forEach((id, i) => {
      const frame = frames.get(id)
      if (frame) tally.add(frame, profile.timeDeltas[i] ?? 0)
    })
  }
  const busy = tally.all - (tally.places.get('(idle)') ?? 0)
  return [
    `\n  CPU profile of ${whose} (${dir}): self time by place, share of the non-idle ${(busy / 1e6).toFixed(1)} s`,
    ...shareLines(tally.places, busy, Number.POSITIVE_INFINITY, 0.01),
    '  the 15 functions with the most self time',
    ...shareLines(tally.functions, busy, 15),
  ]
}

interface HeapNode {
  readonly callFrame: ProfileNode['callFrame']
  readonly selfSize: number
  readonly children: readonly HeapNode[]
}

/**
 * Lines of what a sampling heap profile (`.heapprofile`, collected objects included) allocated:
 * bytes per task, then by place and by function, biggest first. What drives the GC's share.
 */
export async function summarizeAllocations(dir: string, tasks: number): Promise<string[]> {
  const tally = new Tally()
  const visit = (node: HeapNode): void => {
    tally.add(node.callFrame, node.selfSize)
    for (const child of node.children) visit(child)
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith('.heapprofile'))
  for (const file of files) visit((JSON.parse(await readFile(join(dir, file), 'utf8')) as { head: HeapNode }).head)
  if (files.length === 0) return []
  return [
    `\n  allocations of the mats process (sampled): ${Math.round(tally.all / 1024 / tasks)} KiB per task, by place`,
    ...shareLines(tally.places, tally.all, 12),
    '  the 12 functions that allocated most',
    ...shareLines(tally.functions, tally.all, 12),
  ]
}
