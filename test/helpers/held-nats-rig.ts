import type { Test } from 'tap'
import type { ApiClient } from './http.js'
import { aSessionBody } from './mothers.js'
import { startServers } from './servers.js'
import { connectTestInfra, startTestService } from './service.js'
import { startTcpProxy } from './tcp-proxy.js'

/**
 * An API and projector whose NATS traffic goes through a proxy a test can hold back (an append
 * answered late: in doubt), and a reader connected straight to NATS. No worker: tasks stay
 * pending, so an identical brief meets them.
 */
export async function heldNatsRig(t: Test) {
  const servers = await startServers(t)
  const proxy = await startTcpProxy(t, servers.nats.port)
  const service = await startTestService(t, { ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` }, { roles: ['api', 'projector'] })
  const reader = await connectTestInfra(t, servers)
  return { servers, proxy, service, reader }
}

export async function aSession(api: ApiClient): Promise<string> {
  const res = await api.post<{ session?: { id: string } }>('/v1/sessions', aSessionBody())
  if (res.status !== 201 || !res.body.session) throw new Error(`session not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.session.id
}
