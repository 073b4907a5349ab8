/** What a child process of the bench (a mats process, a BullMQ worker) says about itself when asked. */
import { readFileSync } from 'node:fs'
import { constants, type IntervalHistogram, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics } from 'node:v8'

export interface ProcessStats {
  /** Microseconds of CPU (user + system) since the process started. */
  readonly cpuMicros: number
  /** Of it, in the kernel: system calls, every socket write among them. */
  readonly systemCpuMicros: number
  /**
   * Of it, on the main thread (Linux's `/proc/thread-self/schedstat`, user and kernel time; NaN
   * where it cannot be read). The rest is the process's other threads: V8's optimizing compilers
   * and GC helpers above all, libuv's pool, the inspector's.
   */
  readonly mainThreadCpuMicros: number
  /** write(2) calls since the process started, every file and socket (Linux's `/proc/self/io` `syscw`; NaN where it cannot be read). */
  readonly writeCalls: number
  readonly rssBytes: number
  readonly heapUsedBytes: number
  /** What V8 holds for its heap, used or not. */
  readonly heapTotalBytes: number
  /** Memory outside V8's heap owned by JS objects (Buffers among it: `arrayBuffersBytes`). */
  readonly externalBytes: number
  readonly arrayBuffersBytes: number
  /**
   * Of the heap held: V8's young generation (its semi-spaces, where objects are born; V8 grows
   * and shrinks them with the allocation rate), the young objects too large for them, and the
   * old generation.
   */
  readonly youngHeldBytes: number
  readonly youngLargeHeldBytes: number
  readonly oldHeldBytes: number
  /** V8's major GCs (mark-compact) since the process began to be watched. */
  readonly majorGcs: number
  /** Event-loop delay since the last question, in ms. */
  readonly loopDelayP99Ms: number
  readonly loopDelayMaxMs: number
}

/** What a child watches of itself from its start: its event loop's delay, V8's major GCs. */
export interface ProcessWatch {
  readonly delay: IntervalHistogram
  readonly majorGcs: () => number
}

export function watchProcess(): ProcessWatch {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  let majorGcs = 0
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (gcKindOf(entry) === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++
  })
  gcs.observe({ entryTypes: ['gc'] })
  return { delay, majorGcs: () => majorGcs }
}

/** A `gc` entry's kind (its `detail`, which Node's types leave out of PerformanceEntry). */
function gcKindOf(entry: PerformanceEntry): number | undefined {
  const detail: unknown = Reflect.get(entry, 'detail')
  return typeof detail === 'object' && detail !== null && 'kind' in detail && typeof detail.kind === 'number' ? detail.kind : undefined
}

/** The process's figures now; the event-loop delay since the last call. */
export function statsNow({ delay, majorGcs }: ProcessWatch): ProcessStats {
  const cpu = process.cpuUsage()
  const memory = process.memoryUsage()
  const spaces = getHeapSpaceStatistics()
  const held = (names: readonly string[]) => spaces.filter((space) => names.includes(space.space_name)).reduce((sum, space) => sum + space.space_size, 0)
  const stats = {
    cpuMicros: cpu.user + cpu.system,
    systemCpuMicros: cpu.system,
    mainThreadCpuMicros: mainThreadCpuNow(),
    writeCalls: writeCallsNow(),
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    arrayBuffersBytes: memory.arrayBuffers,
    youngHeldBytes: held(['new_space']),
    youngLargeHeldBytes: held(['new_large_object_space']),
    oldHeldBytes: held(['old_space', 'large_object_space']),
    majorGcs: majorGcs(),
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    loopDelayMaxMs: delay.max / 1e6,
  }
  delay.reset()
  return stats
}

function writeCallsNow(): number {
  try {
    return Number(/^syscw: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN)
  } catch {
    return Number.NaN
  }
}

/** This thread's time on a CPU, µs (statsNow runs on the main thread); NaN where Linux's file is not there. */
function mainThreadCpuNow(): number {
  try {
    const nanos = /^(\d+) /.exec(readFileSync('/proc/thread-self/schedstat', 'utf8'))?.[1]
    return nanos === undefined ? Number.NaN : Number(nanos) / 1000
  } catch {
    return Number.NaN
  }
}
