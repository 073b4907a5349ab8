import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { nkeys } from '@nats-io/transport-node'

const run = promisify(execFile)

export interface KeyPairFiles {
  readonly certFile: string
  readonly keyFile: string
}

/** A test CA and what it signed: the server's certificate (127.0.0.1, localhost) and a client's. */
export interface TestCertificates {
  readonly caFile: string
  readonly server: KeyPairFiles
  readonly client: KeyPairFiles
  /** A client certificate the CA did not sign. */
  readonly stranger: KeyPairFiles
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

/** Made with the `openssl` command, valid for a day, in `dir`. */
export async function makeCertificates(dir: string): Promise<TestCertificates> {
  const caFile = join(dir, 'ca.pem')
  const caKeyFile = join(dir, 'ca-key.pem')
  await run('openssl', [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    caKeyFile,
    '-out',
    caFile,
    '-days',
    '1',
    '-subj',
    '/CN=mats test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ])
  const signedBy = { certFile: caFile, keyFile: caKeyFile }
  const [server, client, stranger] = await Promise.all([
    leaf(dir, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth', signedBy),
    leaf(dir, 'client', 'extendedKeyUsage=clientAuth', signedBy),
    leaf(dir, 'stranger', 'extendedKeyUsage=clientAuth', null),
  ])
  return { caFile, server, client, stranger }
}

/** A certificate signed by `ca`, or self-signed when `ca` is null. */
async function leaf(dir: string, name: string, extensions: string, ca: KeyPairFiles | null): Promise<KeyPairFiles> {
  const files = { certFile: join(dir, `${name}.pem`), keyFile: join(dir, `${name}-key.pem`) }
  const request = join(dir, `${name}.csr`)
  const extensionsFile = join(dir, `${name}.ext`)
  await writeFile(extensionsFile, `basicConstraints=CA:FALSE\n${extensions}\n`)
  await run('openssl', ['req', ...EC_KEY, '-keyout', files.keyFile, '-out', request, '-subj', `/CN=mats test ${name}`])
  const signer = ca ? ['-CA', ca.certFile, '-CAkey', ca.keyFile, '-set_serial', String(Date.now())] : ['-signkey', files.keyFile]
  await run('openssl', ['x509', '-req', '-in', request, ...signer, '-days', '1', '-out', files.certFile, '-extfile', extensionsFile])
  return files
}

/** A new NATS user nkey: its seed written to `<dir>/<name>.nk`, its public key for the server's config. */
export async function makeUserNkey(dir: string, name: string): Promise<{ seedFile: string; publicKey: string }> {
  const user = nkeys.createUser()
  const seedFile = join(dir, `${name}.nk`)
  await writeFile(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 })
  return { seedFile, publicKey: user.getPublicKey() }
}
