import type { ChildProcess } from 'node:child_process'
import t from 'tap'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'
import { testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { ROLES as ALL_ROLES, startService, type Role } from '../../src/service.js'

// Six service processes at once per round, on a machine whose cores are shared.
t.setTimeout(400_000)

/** Every role alone, all of them together, and a second api and projector: what a deployment starts at once. */
const ROLES = ['api', 'projector', 'worker', 'all', 'projector', 'api']
/** In one process the starts overlap far more tightly than across processes (each spends a second or two loading code first). */
const IN_PROCESS_ROUNDS = 10
const IN_PROCESS: readonly (readonly Role[])[] = [['api'], ['projector'], ['worker'], ALL_ROLES, ['projector'], ['api', 'projector'], ['worker'], ALL_ROLES]

const START_DEADLINE_MS = 30_000

/** `promise`, or a rejection naming `what` once `ms` pass: a start that hangs fails this round instead of the whole file. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

interface Started {
  readonly role: string
  readonly child: ChildProcess
  readonly output: { text: () => string }
}

function startRole(t: Parameters<typeof spawnMats>[0], role: string, env: Record<string, string>): Started {
  const child = spawnMats(t, ['start', '--role', role], { ...env, LOG_LEVEL: 'info', PORT: '0' })
  return { role, child, output: collectOutput(child) }
}

/** 'started', or why not: the process exited first (its output says why). */
function outcome({ child, output }: Started): 'started' | 'waiting' | string {
  if (output.text().includes('"msg":"mats started"')) return 'started'
  if (child.exitCode !== null || child.signalCode !== null) return `exited ${child.exitCode ?? child.signalCode}: ${output.text().slice(-600)}`
  return 'waiting'
}

for (let round = 1; round <= IN_PROCESS_ROUNDS; round++) {
  t.test(`round ${round}: given empty NATS and MongoDB servers, when ${IN_PROCESS.length} services start at once in one process, then every one starts`, async (t) => {
    const servers = await startServers(t)
    const config = testConfig(servers)
    const starts = await Promise.allSettled(IN_PROCESS.map((roles) => within(START_DEADLINE_MS, `start of ${roles.join('+')}`, startService(config, testLog(), new Set(roles)))))
    for (const start of starts) if (start.status === 'fulfilled') t.teardown(() => start.value.stop())
    t.same(
      starts.filter((s) => s.status === 'rejected').map((s) => String(s.reason)),
      [],
      'no start failed',
    )
  })
}

t.test(`given empty NATS and MongoDB servers, when ${ROLES.length} processes start at once (${ROLES.join(', ')}), then every one starts and stops cleanly`, async (t) => {
  const servers = await startServers(t)
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }
  const started = ROLES.map((role) => startRole(t, role, env))

  const outcomes = await until(
    'every process to start or exit',
    () => {
      const now = started.map(outcome)
      return now.includes('waiting') ? undefined : now
    },
    180_000,
    100,
  )
  t.same(
    outcomes,
    ROLES.map(() => 'started'),
    'no process failed to start (a duplicate key, a name in use...)',
  )

  for (const { child } of started) child.kill('SIGTERM')
  const codes = await Promise.all(started.map(({ child }) => exited(child)))
  t.same(
    codes,
    ROLES.map(() => 0),
    'each stops cleanly on SIGTERM',
  )
})
