/** What the dispatch target prints: a line per round, then each figure's median and range of rounds against its goal. */
import { show, spread } from '../stats.js'
import type { CpuByRole } from './roles-apart.js'

export interface Round {
  running: number
  runningP99: number
  completed: number
  completedP99: number
  waited: number
  refill: number
  refillStarted: number
  /** The same with the worker in its own process. */
  refillApart: number
  refillApartStarted: number
  cpuMs: number
  /** Of it, in the kernel. */
  systemMs: number
  /** The mats process's write system calls per task. */
  writeCalls: number
  /** The JetStream floor's CPU per task (jetstream-floor.ts), in the bench's own process, same burst. */
  floorCpuMs: number
  floorMessages: number
  /** The same burst with each role in its own process: CPU ms per task of each. */
  apart: CpuByRole
  inMsgs: number
  outMsgs: number
}

export function roundLine(r: number, round: Round): string {
  const ms = (n: number) => n.toFixed(1)
  const cpu = (n: number) => n.toFixed(2)
  return (
    `  round ${r}: POST → running p50 ${ms(round.running)} ms (p99 ${ms(round.runningP99)}), → completed p50 ${ms(round.completed)} ms (p99 ${ms(round.completedP99)}), ` +
    `POST waitSeconds → completed answer p50 ${ms(round.waited)} ms; refill: freed slot → next model call p50 ${ms(round.refill)} ms, → next TaskStarted p50 ${ms(round.refillStarted)} ms ` +
    `(worker in its own process: ${ms(round.refillApart)} and ${ms(round.refillApartStarted)} ms); per task: mats CPU ${cpu(round.cpuMs)} ms (${cpu(round.systemMs)} in the kernel, ${round.writeCalls.toFixed(1)} write calls; the JetStream floor ${cpu(round.floorCpuMs)}; ` +
    `roles apart: api ${cpu(round.apart.api)}, worker ${cpu(round.apart.worker)}, projector ${cpu(round.apart.projector)}), ` +
    `NATS messages ${ms(round.inMsgs + round.outMsgs)} (${ms(round.inMsgs)} in, ${ms(round.outMsgs)} out; the floor ${ms(round.floorMessages)})`
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
  { label: "freed slot → next run's first model call (ms)", picks: [(r) => r.refill], digits: 1, after: () => '≤ 5' },
  { label: 'freed slot → next TaskStarted in the log (ms)', picks: [(r) => r.refillStarted], digits: 1 },
  { label: 'the same, the worker in its own process (ms)', picks: [(r) => r.refillApart, (r) => r.refillApartStarted], digits: 1, joint: ' and ' },
  { label: 'mats CPU per no-op task (ms)', picks: [(r) => r.cpuMs], digits: 2, after: () => '≤ 0.8' },
  { label: '  in the kernel (ms)', picks: [(r) => r.systemMs], digits: 2 },
  { label: '  write(2) calls', picks: [(r) => r.writeCalls], digits: 1 },
  { label: "  the JetStream floor's, the same burst (ms)", picks: [(r) => r.floorCpuMs], digits: 2, after: (col) => `mats / floor ${col((r) => r.cpuMs / r.floorCpuMs)}` },
  { label: '  each role apart: api / worker / projector (ms)', picks: [(r) => r.apart.api, (r) => r.apart.worker, (r) => r.apart.projector], digits: 2, joint: ' / ' },
  { label: 'NATS messages per task (in + out)', picks: [(r) => r.inMsgs + r.outMsgs], digits: 1, after: () => '≤ 20' },
  { label: "  the JetStream floor's, the same burst", picks: [(r) => r.floorMessages], digits: 1 },
  { label: '  received from clients / sent to clients', picks: [(r) => r.inMsgs, (r) => r.outMsgs], digits: 1, joint: ' / ' },
]

export function summaryLines(rounds: readonly Round[]): string[] {
  const lines = ['', '  figure                                           median (range of rounds)   goal']
  for (const row of ROWS) {
    const col = (pick: Pick) => show(spread(rounds.map(pick)), row.digits)
    const figures = row.picks.map(col).join(row.joint ?? '')
    lines.push(`  ${row.label.padEnd(48)} ${figures.padEnd(26)} ${row.after?.(col) ?? ''}`.trimEnd())
  }
  return lines
}
