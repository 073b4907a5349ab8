import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nkeys } from '@nats-io/transport-node'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { natsConnectionOptions } from '../../src/infra/nats/connection-options.js'
import { makeCertificates, makeUserNkey, type TestCertificates } from '../helpers/certificates.js'
import { problemsOf } from '../helpers/config-problems.js'

const dir = await mkdtemp(join(tmpdir(), 'mats-nats-config-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const certs: TestCertificates = await makeCertificates(dir)
const user = await makeUserNkey(dir, 'user')

async function aFile(name: string, content: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

/** A creds file as `nsc` writes it; the client does not check the JWT's signature, the server does. */
const credsText = (seed: string) =>
  [
    '-----BEGIN NATS USER JWT-----',
    'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJVQUJDIn0.c2lnbmF0dXJl',
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    seed,
    '------END USER NKEY SEED------',
    '',
  ].join('\n')
const seedOf = (pair: { getSeed(): Uint8Array }) => new TextDecoder().decode(pair.getSeed())

const credsFile = await aFile('user.creds', credsText(seedOf(nkeys.createUser())))
const accountCredsFile = await aFile('account.creds', credsText(seedOf(nkeys.createAccount())))
const accountSeedFile = await aFile('account.nk', seedOf(nkeys.createAccount()))
const garbageFile = await aFile('garbage.txt', 'not a credential\n')
const missingFile = join(dir, 'does-not-exist')

t.test('given no NATS credentials, the connection has no authenticator and TLS only if the server offers it', async (t) => {
  const options = natsConnectionOptions(loadConfig({ NATS_URL: 'nats://a:4222,nats://b:4222' }))
  t.same(options.servers, ['nats://a:4222', 'nats://b:4222'])
  t.equal(options.authenticator, undefined)
  t.equal(options.tls, undefined)
})

t.test('given each way to authenticate, the client answers the server with it', async (t) => {
  const answer = (env: Record<string, string>) => {
    const authenticator = natsConnectionOptions(loadConfig(env)).authenticator
    if (typeof authenticator !== 'function') throw new Error('no authenticator')
    return authenticator('nonce')
  }
  t.same(answer({ NATS_USER: 'mats', NATS_PASSWORD: 'pw' }), { user: 'mats', pass: 'pw' })
  t.same(answer({ NATS_TOKEN: 's3cret' }), { auth_token: 's3cret' })
  t.match(answer({ NATS_NKEY_SEED_FILE: user.seedFile }), { nkey: user.publicKey, sig: /^\S+$/ })
  t.match(answer({ NATS_CREDS_FILE: credsFile }), { jwt: /^eyJ/, nkey: /^U/, sig: /^\S+$/ })
})

t.test('given a file that is missing or not what its variable needs, the problem names the variable and the file', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['NATS_CREDS_FILE', missingFile, /^NATS_CREDS_FILE: cannot read ".*does-not-exist" \(ENOENT\)$/],
    ['NATS_CREDS_FILE', garbageFile, /^NATS_CREDS_FILE: ".*garbage.txt" is not a NATS credentials file \(unable to parse credentials\)$/],
    ['NATS_CREDS_FILE', accountCredsFile, /^NATS_CREDS_FILE: .* holds a seed of another kind than a user's/],
    ['NATS_NKEY_SEED_FILE', garbageFile, /^NATS_NKEY_SEED_FILE: ".*garbage.txt" does not hold an nkey seed/],
    ['NATS_NKEY_SEED_FILE', accountSeedFile, /^NATS_NKEY_SEED_FILE: .* holds a seed of another kind than a user's \(its public key starts with A,/],
    ['NATS_TLS_CA_FILE', missingFile, /^NATS_TLS_CA_FILE: cannot read .* \(ENOENT\)$/],
    ['NATS_TLS_CA_FILE', certs.server.keyFile, /^NATS_TLS_CA_FILE: ".*server-key.pem" holds no PEM certificate/],
  ]
  for (const [name, path, expected] of cases) {
    t.match(problemsOf(t, { [name]: path }), [expected], `${name}=${path}`)
  }
})

t.test('given user without password (or the reverse), the missing one is named', async (t) => {
  t.same(problemsOf(t, { NATS_USER: 'mats' }), ['NATS_PASSWORD: required with NATS_USER'])
  const problems = problemsOf(t, { NATS_PASSWORD: 'hunter2' })
  t.same(problems, ['NATS_USER: required with NATS_PASSWORD'])
  t.notMatch(problems.join('\n'), /hunter2/, 'the password is never quoted')
})

t.test('given two ways to authenticate at once, the second is refused naming the first', async (t) => {
  t.match(problemsOf(t, { NATS_USER: 'mats', NATS_PASSWORD: 'pw', NATS_TOKEN: 'tok' }), [/^NATS_TOKEN: cannot be used together with NATS_USER \(set one way/])
  t.match(problemsOf(t, { NATS_CREDS_FILE: credsFile, NATS_NKEY_SEED_FILE: user.seedFile, NATS_TOKEN: 'tok' }), [
    /^NATS_NKEY_SEED_FILE: cannot be used together with NATS_CREDS_FILE/,
    /^NATS_TOKEN: cannot be used together with NATS_CREDS_FILE/,
  ])
})

t.test('given a client certificate, its key must be given and must match it', async (t) => {
  t.same(problemsOf(t, { NATS_TLS_CERT_FILE: certs.client.certFile }), ['NATS_TLS_KEY_FILE: required with NATS_TLS_CERT_FILE'])
  t.same(problemsOf(t, { NATS_TLS_KEY_FILE: certs.client.keyFile }), ['NATS_TLS_CERT_FILE: required with NATS_TLS_KEY_FILE'])
  t.match(problemsOf(t, { NATS_TLS_CERT_FILE: certs.client.certFile, NATS_TLS_KEY_FILE: certs.stranger.keyFile }), [
    /^NATS_TLS_KEY_FILE: ".*stranger-key.pem" is not the private key of NATS_TLS_CERT_FILE \(.*key values mismatch\)$/,
  ])
  t.match(problemsOf(t, { NATS_TLS_CERT_FILE: certs.client.keyFile, NATS_TLS_KEY_FILE: certs.client.keyFile }), [/^NATS_TLS_CERT_FILE: .* holds no PEM certificate/])
})

t.test('given TLS settings that contradict each other, they are refused', async (t) => {
  t.match(problemsOf(t, { NATS_TLS: 'false', NATS_TLS_CA_FILE: certs.caFile }), [/^NATS_TLS: false contradicts/])
  t.match(problemsOf(t, { NATS_TLS_SERVER_NAME: 'nats.example' }), [/^NATS_TLS_SERVER_NAME: needs TLS/])
  t.match(problemsOf(t, { NATS_TLS: 'true', NATS_TLS_SERVER_NAME: 'nats example' }), [/^NATS_TLS_SERVER_NAME: must match pattern/])
})

t.test('given TLS files, the connection requires TLS with them', async (t) => {
  const config = loadConfig({
    NATS_TLS_CA_FILE: certs.caFile,
    NATS_TLS_CERT_FILE: certs.client.certFile,
    NATS_TLS_KEY_FILE: certs.client.keyFile,
    NATS_TLS_SERVER_NAME: 'localhost',
  })
  t.same(natsConnectionOptions(config).tls, { caFile: certs.caFile, certFile: certs.client.certFile, keyFile: certs.client.keyFile, servername: 'localhost' })
  t.same(natsConnectionOptions(loadConfig({ NATS_TLS: 'true' })).tls, {}, 'NATS_TLS alone: TLS verified against the system CAs')
})
