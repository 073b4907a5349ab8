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

/** Lines of `place  share %` for every profile in `dir`, biggest first, down to 1 %. */
export async function summarizeProfiles(dir: string, whose = 'the mats process'): Promise<string[]> {
  const totals = new Map<string, number>()
  const functions = new Map<string, number>()
  let all = 0
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile
    const places = new Map(profile.nodes.map((node) => [node.id, placeOf(node.callFrame)]))
    const names = new Map(profile.nodes.map((node) => [node.id, functionOf(node.callFrame)]))
    profile.samples.forEach((id, i) => {
      const place = places.get(id) ?? '?'
      const micros = profile.timeDeltas[i] ?? 0
      totals.set(place, (totals.get(place) ?? 0) + micros)
      const name = names.get(id) ?? '?'
      functions.set(name, (functions.get(name) ?? 0) + micros)
      all += micros
    })
  }
  const busy = all - (totals.get('(idle)') ?? 0)
  const lines = [`\n  CPU profile of ${whose} (${dir}): self time by place, share of the non-idle ${(busy / 1e6).toFixed(1)} s`]
  for (const [place, micros] of [...totals].filter(([place]) => place !== '(idle)').sort((a, b) => b[1] - a[1])) {
    if (micros / busy < 0.01) break
    lines.push(`    ${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${place}`)
  }
  lines.push('  the 15 functions with the most self time')
  const busiest = [...functions].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1])
  for (const [name, micros] of busiest.slice(0, 15)) lines.push(`    ${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`)
  return lines
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
  const places = new Map<string, number>()
  const functions = new Map<string, number>()
  let all = 0
  const visit = (node: HeapNode): void => {
    const place = placeOf(node.callFrame)
    const name = functionOf(node.callFrame)
    places.set(place, (places.get(place) ?? 0) + node.selfSize)
    functions.set(name, (functions.get(name) ?? 0) + node.selfSize)
    all += node.selfSize
    for (const child of node.children) visit(child)
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith('.heapprofile'))
  for (const file of files) visit((JSON.parse(await readFile(join(dir, file), 'utf8')) as { head: HeapNode }).head)
  if (files.length === 0) return []
  const lines = [`\n  allocations of the mats process (sampled): ${Math.round(all / 1024 / tasks)} KiB per task, by place`]
  const share = (bytes: number) => `${((bytes / all) * 100).toFixed(1).padStart(5)} %`
  for (const [place, bytes] of [...places].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`    ${share(bytes)}  ${place}`)
  lines.push('  the 12 functions that allocated most')
  for (const [name, bytes] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`    ${share(bytes)}  ${name}`)
  return lines
}
