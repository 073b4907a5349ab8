import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { natsConnectionOptions } from '../../src/infra/nats/connection-options.js'
import { makeCertificates, makeUserNkey } from '../helpers/certificates.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService, testConfig } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * A nats-server as production should run it: TLS only, client certificates verified against
 * our CA, and every client authenticated (a user and password, or an nkey).
 */
const secrets = await mkdtemp(join(tmpdir(), 'mats-secrets-'))
t.teardown(() => rm(secrets, { recursive: true, force: true }))
const certs = await makeCertificates(secrets)
const nkeyUser = await makeUserNkey(secrets, 'operator')
const PASSWORD = 'correct horse battery staple'

const servers = await startServers(t, {
  natsConfig: `
tls {
  cert_file: "${certs.server.certFile}"
  key_file: "${certs.server.keyFile}"
  ca_file: "${certs.caFile}"
  verify: true
  timeout: 2
}
authorization {
  users: [
    { user: mats, password: "${PASSWORD}" }
    { nkey: ${nkeyUser.publicKey} }
  ]
}
`,
})

const withClientCertificate = { NATS_TLS_CA_FILE: certs.caFile, NATS_TLS_CERT_FILE: certs.client.certFile, NATS_TLS_KEY_FILE: certs.client.keyFile }
const asMats = { ...withClientCertificate, NATS_USER: 'mats', NATS_PASSWORD: PASSWORD }

/**
 * Connects as a mats process would with `env`; resolves to the server's refusal, or null when it let us in.
 * A client certificate is refused after the client's side of the TLS 1.3 handshake is done: nats.js
 * then sees no INFO and reports a timeout, hence the short one (a good connection takes milliseconds).
 */
async function refusal(env: Record<string, string>): Promise<string | null> {
  try {
    const nc = await connect({ ...natsConnectionOptions(testConfig(servers, env)), timeout: 2000 })
    await nc.close()
    return null
  } catch (err) {
    return err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ''}` : String(err)
  }
}

t.test('given TLS with a client certificate and a password, a task runs from the API to its result', async (t) => {
  const service = await startTestService(t, servers, { env: { ...asMats, OFFLINE_AGENT_LATENCY_MS: '0' } })
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  t.equal(session.status, 201)

  const created = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: 'Write three launch posts for LinkedIn' })
  t.equal(created.status, 201)

  const done = await until('the task to complete', async () => {
    const res = await caller.api.get<{ task: { status: string; result: string | null } }>(`/v1/tasks/${created.body.task.id}`)
    return res.body.task.status === 'completed' && res.body.task
  })
  t.match(done.result, /\S/, 'the worker ran it and stored its result')
  t.match(service.infra.nc.info, { tls_required: true, tls_verify: true }, 'over TLS, client certificates verified')
})

t.test('given an nkey seed instead of a password, an operator command reaches JetStream', async (t) => {
  const infra = await connectTestInfra(t, servers, { ...withClientCertificate, NATS_NKEY_SEED_FILE: nkeyUser.seedFile })
  const info = await infra.jsm.streams.info('MATS_TASKS')
  t.equal(info.config.name, 'MATS_TASKS')
})

t.test('given the expected host name differs from the address, NATS_TLS_SERVER_NAME is what the certificate is checked against', async (t) => {
  t.equal(await refusal({ ...asMats, NATS_TLS_SERVER_NAME: 'localhost' }), null, 'localhost is in the certificate')
  t.match(await refusal({ ...asMats, NATS_TLS_SERVER_NAME: 'nats.example' }), /Host: nats\.example\. is not in the cert's altnames/, 'nats.example is not')
})

t.test('given any one credential wrong or missing, the server refuses the connection', async (t) => {
  t.equal(await refusal(asMats), null, 'the right ones are let in')
  t.match(await refusal({ ...asMats, NATS_PASSWORD: 'wrong' }), /authorization violation/i, 'a wrong password')
  t.match(await refusal(withClientCertificate), /authorization violation/i, 'no credentials')
  t.match(await refusal({ NATS_USER: 'mats', NATS_PASSWORD: PASSWORD, NATS_TLS_CA_FILE: certs.caFile }), /timeout/i, 'no client certificate')
  t.match(await refusal({ ...asMats, NATS_TLS_CERT_FILE: certs.stranger.certFile, NATS_TLS_KEY_FILE: certs.stranger.keyFile }), /timeout/i, 'a certificate our CA did not sign')
  t.match(await refusal({ ...asMats, NATS_TLS_CA_FILE: certs.stranger.certFile }), /unable to verify the first certificate/, "a CA that did not sign the server's certificate")
})
