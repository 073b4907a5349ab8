/** What the dispatch target prints: a line per round, then each figure's median and range of rounds against its goal. */
import { show, spread } from '../stats.js'
import type { FloorCost, TaskCost } from './overhead.js'
import type { RefillFigures } from './refill.js'
import type { CpuAlone } from './roles-alone.js'
import type { CpuByRole } from './roles-apart.js'

export interface Round {
  running: number
  runningP99: number
  completed: number
  completedP99: number
  waited: number
  /** A freed slot refilled, every role in one process. */
  refill: RefillFigures
  /** The same with the worker in its own process. */
  refillApart: RefillFigures
  /** The burst's cost per task to the mats process and to NATS. */
  cost: TaskCost
  /** The JetStream floor's (jetstream-floor.ts), in the bench's own process, same burst. */
  floor: FloorCost
  /** The same burst with each role in its own process: CPU ms per task of each. */
  apart: CpuByRole
  /** The api alone, and the worker alone draining a backlog (roles-alone.ts): CPU ms per task of each. */
  alone: CpuAlone
}

export function roundLine(r: number, round: Round): string {
  const ms = (n: number) => n.toFixed(1)
  const cpu = (n: number) => n.toFixed(2)
  return (
    `  round ${r}: POST → running p50 ${ms(round.running)} ms (p99 ${ms(round.runningP99)}), → completed p50 ${ms(round.completed)} ms (p99 ${ms(round.completedP99)}), ` +
    `POST waitSeconds → completed answer p50 ${ms(round.waited)} ms; refill: freed slot → next model call p50 ${ms(round.refill.firstCallP50)} ms, → next TaskStarted p50 ${ms(round.refill.startedP50)} ms ` +
    `(worker in its own process: ${ms(round.refillApart.firstCallP50)} and ${ms(round.refillApart.startedP50)} ms); per task: mats CPU ${cpu(round.cost.cpuMs)} ms (${cpu(round.cost.mainThreadMs)} on its main thread, ${round.cost.majorGcs.toFixed(1)} major GCs in the burst, ${cpu(round.cost.systemMs)} in the kernel, ${round.cost.writeCalls.toFixed(1)} write calls; the JetStream floor ${cpu(round.floor.cpuMs)}; ` +
    `roles apart: api ${cpu(round.apart.api)}, worker ${cpu(round.apart.worker)}, projector ${cpu(round.apart.projector)}; alone: api ${cpu(round.alone.api)}, worker draining ${cpu(round.alone.worker)}), ` +
    `NATS messages ${ms(round.cost.inMsgs + round.cost.outMsgs)} (${ms(round.cost.inMsgs)} in, ${ms(round.cost.outMsgs)} out; the floor ${ms(round.floor.messages)})`
  )
}

type Pick = (round: Round) => number

/** A figure's label, its medians (one or more, joined by `joint`), and what follows them: its goal or a ratio. */
interface Row {
  readonly label: string
  readonly picks: readonly Pick[]
  readonly digits: number
  readonly joint?: string
  readonly after?: (col: (pick: Pick) => string) => string
}

const ROWS: readonly Row[] = [
  { label: 'POST → TaskStarted in the log, p50 (ms)', picks: [(r) => r.running], digits: 1, after: () => '≤ 10' },
  { label: 'POST → TaskCompleted in the log, p50 (ms)', picks: [(r) => r.completed], digits: 1, after: () => '≤ 25' },
  { label: 'POST waitSeconds → answer completed, p50 (ms)', picks: [(r) => r.waited], digits: 1 },
  { label: "freed slot → next run's first model call (ms)", picks: [(r) => r.refill.firstCallP50], digits: 1, after: () => '≤ 5' },
  { label: 'freed slot → next TaskStarted in the log (ms)', picks: [(r) => r.refill.startedP50], digits: 1 },
  { label: 'the same, the worker in its own process (ms)', picks: [(r) => r.refillApart.firstCallP50, (r) => r.refillApart.startedP50], digits: 1, joint: ' and ' },
  { label: 'mats CPU per no-op task (ms)', picks: [(r) => r.cost.cpuMs], digits: 2, after: () => '≤ 0.8' },
  { label: '  on its main thread (ms)', picks: [(r) => r.cost.mainThreadMs], digits: 2 },
  { label: '  on its other threads: V8 compiling, GC (ms)', picks: [otherThreads], digits: 2 },
  { label: "  V8's major GCs in the burst", picks: [(r) => r.cost.majorGcs], digits: 1 },
  { label: '  in the kernel, any thread (ms)', picks: [(r) => r.cost.systemMs], digits: 2 },
  { label: '  write(2) calls', picks: [(r) => r.cost.writeCalls], digits: 1 },
  { label: "  the JetStream floor's, the same burst (ms)", picks: [(r) => r.floor.cpuMs], digits: 2, after: (col) => `mats / floor ${col((r) => r.cost.cpuMs / r.floor.cpuMs)}` },
  { label: '  each role apart: api / worker / projector (ms)', picks: [(r) => r.apart.api, (r) => r.apart.worker, (r) => r.apart.projector], digits: 2, joint: ' / ' },
  { label: '  the api alone / the worker alone, draining (ms)', picks: [(r) => r.alone.api, (r) => r.alone.worker], digits: 2, joint: ' / ' },
  { label: '  those two + the projector apart (ms)', picks: [withoutTheOthers], digits: 2, after: (col) => `one process / it ${col((r) => r.cost.cpuMs / withoutTheOthers(r))}` },
  { label: 'NATS messages per task (in + out)', picks: [(r) => r.cost.inMsgs + r.cost.outMsgs], digits: 1, after: () => '≤ 20' },
  { label: "  the JetStream floor's, the same burst", picks: [(r) => r.floor.messages], digits: 1 },
  { label: '  received from clients / sent to clients', picks: [(r) => r.cost.inMsgs, (r) => r.cost.outMsgs], digits: 1, joint: ' / ' },
]

/** What the mats process's other threads spent a task: V8's optimizing compilers and GC helpers above all. */
function otherThreads(round: Round): number {
  return round.cost.cpuMs - round.cost.mainThreadMs
}

/** Each role's CPU per task without the others at work (the projector's as apart in the burst: it is not measured alone). */
function withoutTheOthers(round: Round): number {
  return round.alone.api + round.alone.worker + round.apart.projector
}

export function summaryLines(rounds: readonly Round[]): string[] {
  const lines = ['', '  figure                                           median (range of rounds)   goal']
  for (const row of ROWS) {
    const col = (pick: Pick) => show(spread(rounds.map(pick)), row.digits)
    const figures = row.picks.map(col).join(row.joint ?? '')
    lines.push(`  ${row.label.padEnd(48)} ${figures.padEnd(26)} ${row.after?.(col) ?? ''}`.trimEnd())
  }
  return lines
}
