/**
 * The overhead burst with each role in its own process (an `api`, a `worker`, a `projector`),
 * as a deployment that scales them runs it: each process's CPU per no-op task, less what it
 * spends idle in as long. What one process of a role sustains per core is its inverse.
 */
import { oneClient, type Client } from './accounts.js'
import { beyondIdle, postBurst } from './overhead.js'
import { capacityServers, type CapacityServers, type Stoppers } from './servers.js'
import { startMatsProcess, type MatsProcess } from './service-process.js'

const ROLES = ['api', 'worker', 'projector'] as const
type RoleApart = (typeof ROLES)[number]

export type CpuByRole = Record<RoleApart, number>

export interface RolesApartRig {
  readonly servers: CapacityServers
  readonly processes: Record<RoleApart, MatsProcess>
  readonly url: string
  readonly client: Client
}

export async function rolesApartRig(stoppers: Stoppers, env: Record<string, string>): Promise<RolesApartRig> {
  const servers = stoppers.add(await capacityServers())
  const common = { ...env, NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }
  const started = await Promise.all(ROLES.map(async (role) => stoppers.add(await startMatsProcess({ roles: [role], env: common }))))
  const processes = Object.fromEntries(ROLES.map((role, i) => [role, started[i]])) as Record<RoleApart, MatsProcess>
  const url = processes.api.url ?? ''
  const client = await oneClient(servers, url)
  return { servers, processes, url, client }
}

/** `burst` no-op tasks POSTed `inFlight` at a time until every consumer has settled: each role's CPU ms per task. */
export async function measureRolesApart(rig: RolesApartRig, label: string, burst: number, inFlight: number): Promise<CpuByRole> {
  const read = async () => (await Promise.all(ROLES.map((role) => rig.processes[role].stats()))).map((stats) => stats.cpuMicros)
  const micros = await beyondIdle(rig.servers.monitorUrl, read, () => postBurst(rig, `Apart brief ${label}`, { tasks: burst, inFlight }))
  const perTask = (i: number) => (micros[i] ?? 0) / 1000 / burst
  return { api: perTask(0), worker: perTask(1), projector: perTask(2) }
}
