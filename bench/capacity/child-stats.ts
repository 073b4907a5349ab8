/** What a child process of the bench (a mats process, a BullMQ worker) says about itself when asked. */
import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import { getHeapSpaceStatistics } from 'node:v8'

export interface ProcessStats {
  /** Microseconds of CPU (user + system) since the process started. */
  readonly cpuMicros: number
  /** Of it, in the kernel: system calls, every socket write among them. */
  readonly systemCpuMicros: number
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
  /** Event-loop delay since the last question, in ms. */
  readonly loopDelayP99Ms: number
  readonly loopDelayMaxMs: number
}

export function loopDelay(): IntervalHistogram {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  return delay
}

/** The process's figures now; the event-loop delay since the last call. */
export function statsNow(delay: IntervalHistogram): ProcessStats {
  const cpu = process.cpuUsage()
  const memory = process.memoryUsage()
  const spaces = getHeapSpaceStatistics()
  const held = (names: readonly string[]) => spaces.filter((space) => names.includes(space.space_name)).reduce((sum, space) => sum + space.space_size, 0)
  const stats = {
    cpuMicros: cpu.user + cpu.system,
    systemCpuMicros: cpu.system,
    writeCalls: writeCallsNow(),
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    arrayBuffersBytes: memory.arrayBuffers,
    youngHeldBytes: held(['new_space']),
    youngLargeHeldBytes: held(['new_large_object_space']),
    oldHeldBytes: held(['old_space', 'large_object_space']),
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
