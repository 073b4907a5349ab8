/**
 * Which NATS messages a no-op task costs, by kind: nats-server's protocol trace (`-V`) over
 * TRACED tasks POSTed one at a time, each waited for on the service's settling (read from the
 * monitoring port), or IN_FLIGHT at a time, settled once at the end; every PUB/HPUB a client
 * sent and MSG/HMSG the server delivered, grouped by subject with ids taken out, per task, less
 * what the idle service sent in as long (measured for 5 s before).
 *
 *   TARGETS=messages npm run bench:capacity      TRACED=20 IN_FLIGHT=1
 */
import { eventSubjectParts, SUBJECT_ROOT } from '../../src/infra/nats/subjects.js'
import { oneClient, postTask } from './accounts.js'
import { capacityServers, Stoppers } from './servers.js'
import { startMatsProcess } from './service-process.js'
import { settled } from './settle.js'

const TRACED = Number(process.env.TRACED ?? 20)
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 1)
const IDLE_MS = 5000
const say = (line: string) => process.stdout.write(`${line}\n`)

/** `$JS.API.CONSUMER.MSG.NEXT.MATS_DISPATCH.mats-dispatch-<id>` keeps its stream; ids, inboxes and account subjects become shapes. */
export function shapeOf(subject: string): string {
  if (subject.startsWith('_INBOX.')) return '_INBOX (a reply)'
  if (subject.startsWith('$JS.ACK.')) return `$JS.ACK.${subject.split('.')[2]}.${subject.split('.')[3]} (an ack)`
  if (subject.startsWith(`${SUBJECT_ROOT}.`)) {
    const { category, type } = eventSubjectParts(subject)
    return `${SUBJECT_ROOT}.${category}.*.*.${type}`
  }
  if (subject.startsWith('$KV.')) return subject.split('.').slice(0, 2).join('.')
  if (subject.startsWith('$JS.API.DIRECT.GET.')) return subject.split('.').slice(0, 5).join('.')
  if (subject.startsWith('$JS.FC.')) return '$JS.FC (flow control)'
  return subject.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').replace(/\b[A-Za-z0-9]{22}\b/g, '<nuid>')
}

/**
 * `in <shape>` for what a client published, `out <shape>` for what the server delivered; a reply
 * is named by the request it answers (`out reply to <shape>`), from the reply subject the
 * request carried (`PUB <subject> <reply> <size>`, `HPUB <subject> <reply> <hsize> <size>`).
 */
function traceKey(line: string, requests: Map<string, string>): string | null {
  const op = line.match(/(<<-|->>) \[(H?PUB|H?MSG) ([^\]]+)\]/)
  if (!op) return null
  const [subject = '', ...rest] = (op[3] ?? '').split(' ')
  if (op[1] === '<<-') {
    const reply = rest.length === (op[2] === 'HPUB' ? 3 : 2) ? rest[0] : undefined
    if (reply?.startsWith('_INBOX.')) requests.set(reply, shapeOf(subject))
    return `in  ${shapeOf(subject)}`
  }
  // Kept for the run: a pull's inbox gets its status lines too, a batched direct get its end-of-batch.
  const answered = requests.get(subject)
  return answered === undefined ? `out ${shapeOf(subject)}` : `out reply to ${answered}`
}

export async function main(): Promise<void> {
  const idle = new Map<string, number>()
  const busy = new Map<string, number>()
  let counts: Map<string, number> | null = null
  let buffered = ''
  const requests = new Map<string, string>()
  const trace = (output: string) => {
    buffered += output
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    if (!counts) return
    for (const line of lines) {
      const key = traceKey(line, requests)
      if (key) counts.set(key, (counts.get(key) ?? 0) + 1)
    }
  }
  const stoppers = new Stoppers()
  try {
    const servers = stoppers.add(await capacityServers({ trace }))
    const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, OFFLINE_AGENT_LATENCY_MS: '0', RATE_LIMITS_ENABLED: 'false' }
    const mats = stoppers.add(await startMatsProcess({ roles: ['api', 'worker', 'projector'], env }))
    const client = await oneClient(servers, mats.url ?? '')
    for (let i = 0; i < 5; i++) await postTask(mats.url ?? '', client, `Warm-up brief ${i}`)
    await settled(servers.monitorUrl)
    counts = idle
    await new Promise((r) => setTimeout(r, IDLE_MS))
    counts = busy
    const started = performance.now()
    // One at a time: each settled before the next. Several: settled once, after the last.
    const alone = IN_FLIGHT <= 1
    let next = 0
    const poster = async () => {
      for (let i = next++; i < TRACED; i = next++) {
        await postTask(mats.url ?? '', client, `Traced brief ${i}: plan the launch posts`)
        if (alone) await settled(servers.monitorUrl)
      }
    }
    await Promise.all(Array.from({ length: Math.max(1, IN_FLIGHT) }, poster))
    if (!alone) await settled(servers.monitorUrl)
    counts = null
    const seconds = (performance.now() - started) / 1000
    // What the idle service exchanges in as long (projector leases, heartbeats, pulls) is not the tasks'.
    const perTask = [...busy].map(([key, n]) => [key, (n - ((idle.get(key) ?? 0) * seconds * 1000) / IDLE_MS) / TRACED] as const)
    const total = perTask.reduce((sum, [, n]) => sum + n, 0)
    const idleRate = [...idle.values()].reduce((a, b) => a + b, 0) / (IDLE_MS / 1000)
    say(
      `\nNATS messages per no-op task, from nats-server's trace over ${TRACED} tasks (${IN_FLIGHT} in flight) in ${seconds.toFixed(1)} s, less the idle service's ${idleRate.toFixed(0)}/s: ${total.toFixed(1)}`,
    )
    for (const [key, n] of perTask.sort((a, b) => b[1] - a[1])) if (Math.abs(n) >= 0.05) say(`  ${n.toFixed(2).padStart(6)}  ${key}`)
  } finally {
    await stoppers.stopAll()
  }
}
