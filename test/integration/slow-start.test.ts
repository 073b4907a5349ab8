import t from 'tap'
import { startService } from '../../src/service.js'
import { capturingLog } from '../helpers/language-models.js'
import { startServers } from '../helpers/servers.js'
import { testConfig } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { until } from '../helpers/wait.js'

/**
 * A starved machine (ADR 0035): the process stalls, and a NATS request of its start outlasts
 * NATS_TIMEOUT_MS though NATS is there. The start is made again instead of failing.
 */
t.test('given NATS answering a request of the start too late, when the service starts, then it starts all the same, once more', async (t) => {
  const servers = await startServers(t)
  const proxy = await startTcpProxy(t, servers.nats.port)
  const { log, lines } = capturingLog('warn')
  const config = testConfig({ ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` })

  // Given: what the service sends from its first stream request on is held until that request timed out.
  const held = proxy.holdFrom('$JS.API.STREAM.')
  let settled = false
  const starting = startService(config, log, new Set(['api', 'projector'] as const)).finally(() => {
    settled = true
  })
  starting.catch(() => undefined)
  await held
  await until('the first start to time out', () => settled || lines.some((line) => line.includes('did not answer in time while starting')), 20_000, 20)
  // When
  proxy.release()

  // Then
  const service = await starting
  t.teardown(() => service.stop())
  t.ok(service.url, 'it listens')
  t.equal((await fetch(`${service.url}/readyz`)).status, 200, 'and is ready')
})
