/**
 * The client side of the waiting-clients bench: opening thousands of connections without a
 * SYN flood, counting what went wrong by its cause instead of dying of the first rejection, and
 * reading Server-Sent Events cheaply (the load generator shares the machine with the API, and
 * its own delay in reading a frame would count as the API's latency).
 */
import { epochMs } from './waiting-clients-api.js'

/** Failures by their cause (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, a status), counted. */
export class Failures {
  readonly counts = new Map<string, number>()

  add(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
  }

  /** Records the cause of a rejected fetch and answers it. */
  of(err: unknown): string {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
    const kind = cause instanceof Error ? (('code' in cause && typeof cause.code === 'string' ? cause.code : null) ?? cause.name) : String(cause)
    this.add(kind)
    return kind
  }

  get total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0)
  }

  toString(): string {
    return this.total === 0 ? 'none' : [...this.counts].map(([kind, n]) => `${n} ${kind}`).join(', ')
  }
}

/**
 * `open(i)` for i < count, at most `inFlight` at a time. A burst of thousands of connects
 * overflows the server's listen backlog (511 in node): the kernel drops the SYNs it cannot
 * queue and the clients resend them after 1, 3, 7 s..., past undici's 10 s connect timeout.
 */
export async function paced<T>(count: number, inFlight: number, open: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count)
  let next = 0
  const lane = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) results[i] = await open(i)
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane))
  return results
}

/**
 * Reads an event stream until it ends or `signal` aborts, handing `onFrame` each complete frame
 * that names one of `types` with the time its chunk arrived (epoch ms); other frames are skipped
 * without being parsed. Answers whether the stream ended on its own.
 */
export async function readFrames(res: Response, types: readonly string[], onFrame: (frame: string, at: number) => boolean, signal: AbortSignal): Promise<boolean> {
  const reader = res.body?.getReader()
  if (!reader) return true
  const decoder = new TextDecoder()
  let tail = ''
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) return true
      const at = epochMs()
      const text = tail + decoder.decode(chunk.value, { stream: true })
      const complete = text.lastIndexOf('\n\n') + 2
      tail = text.slice(complete)
      if (!types.some((type) => text.includes(`event: ${type}\n`))) continue
      for (const frame of text.slice(0, complete).split('\n\n')) if (types.some((type) => frame.includes(`event: ${type}\n`)) && onFrame(frame, at)) return false
    }
  } catch (err) {
    if (signal.aborted) return false
    throw err
  } finally {
    reader.releaseLock()
  }
}

/** The aggregate an event frame is about (its envelope's `aggregateId`). */
export function aggregateOf(frame: string): string | null {
  return /"aggregateId":"([^"]+)"/.exec(frame)?.[1] ?? null
}
