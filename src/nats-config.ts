import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'
import { credsAuthenticator, nkeyAuthenticator, type Auth } from '@nats-io/transport-node'

/**
 * The NATS credential and TLS settings of Config, checked together once the variables parse one
 * by one: the files are read and parsed here, at boot, so that a wrong path or a broken file
 * stops the process with its variable named instead of failing every reconnect later.
 */
export interface NatsSecuritySettings {
  readonly NATS_CREDS_FILE?: string | undefined
  readonly NATS_NKEY_SEED_FILE?: string | undefined
  readonly NATS_USER?: string | undefined
  readonly NATS_PASSWORD?: string | undefined
  readonly NATS_TOKEN?: string | undefined
  readonly NATS_TLS?: boolean | undefined
  readonly NATS_TLS_CA_FILE?: string | undefined
  readonly NATS_TLS_CERT_FILE?: string | undefined
  readonly NATS_TLS_KEY_FILE?: string | undefined
  readonly NATS_TLS_SERVER_NAME?: string | undefined
}

type SettingName = keyof NatsSecuritySettings

/** One way to authenticate, named by the variables that choose it. */
const AUTH_METHODS: readonly (readonly SettingName[])[] = [['NATS_CREDS_FILE'], ['NATS_NKEY_SEED_FILE'], ['NATS_USER', 'NATS_PASSWORD'], ['NATS_TOKEN']]

/** Signing a nonce is what the client does at connect: the same parse, the same errors. */
const PROBE_NONCE = 'mats-config-check'
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g

export function natsSecurityProblems(settings: NatsSecuritySettings): string[] {
  return [...authenticationProblems(settings), ...tlsProblems(settings)]
}

/** TLS is required when asked for, or implied by any certificate file. */
export function natsTlsRequired(settings: NatsSecuritySettings): boolean {
  return settings.NATS_TLS === true || settings.NATS_TLS_CA_FILE !== undefined || settings.NATS_TLS_CERT_FILE !== undefined
}

function authenticationProblems(settings: NatsSecuritySettings): string[] {
  const chosen = AUTH_METHODS.filter((names) => names.some((name) => settings[name] !== undefined))
  const problems = chosen
    .slice(1)
    .map(([name]) => `${name}: cannot be used together with ${chosen[0]?.[0]} (set one way to authenticate to NATS: a creds file, an nkey seed, a user and password, or a token)`)
  if (settings.NATS_USER !== undefined && settings.NATS_PASSWORD === undefined) problems.push('NATS_PASSWORD: required with NATS_USER')
  if (settings.NATS_PASSWORD !== undefined && settings.NATS_USER === undefined) problems.push('NATS_USER: required with NATS_PASSWORD')
  const creds = settings.NATS_CREDS_FILE
  if (creds !== undefined) problems.push(...fileProblems('NATS_CREDS_FILE', creds, credsProblem))
  const seed = settings.NATS_NKEY_SEED_FILE
  if (seed !== undefined) problems.push(...fileProblems('NATS_NKEY_SEED_FILE', seed, seedProblem))
  return problems
}

function tlsProblems(settings: NatsSecuritySettings): string[] {
  const problems: string[] = []
  const { NATS_TLS_CA_FILE: ca, NATS_TLS_CERT_FILE: cert, NATS_TLS_KEY_FILE: key } = settings
  if (ca !== undefined) problems.push(...fileProblems('NATS_TLS_CA_FILE', ca, certificatesProblem))
  if (cert !== undefined && key === undefined) problems.push('NATS_TLS_KEY_FILE: required with NATS_TLS_CERT_FILE')
  if (key !== undefined && cert === undefined) problems.push('NATS_TLS_CERT_FILE: required with NATS_TLS_KEY_FILE')
  if (cert !== undefined && key !== undefined) {
    const certProblems = fileProblems('NATS_TLS_CERT_FILE', cert, certificatesProblem)
    const keyProblems = fileProblems('NATS_TLS_KEY_FILE', key, () => undefined)
    problems.push(...certProblems, ...keyProblems)
    if (certProblems.length === 0 && keyProblems.length === 0) problems.push(...keyPairProblems(cert, key))
  }
  if (settings.NATS_TLS === false && natsTlsRequired(settings)) problems.push('NATS_TLS: false contradicts NATS_TLS_CA_FILE / NATS_TLS_CERT_FILE, which turn TLS on')
  if (settings.NATS_TLS_SERVER_NAME !== undefined && !natsTlsRequired(settings)) problems.push('NATS_TLS_SERVER_NAME: needs TLS (NATS_TLS=true or a NATS_TLS_* file)')
  return problems
}

/** Reads `path` and names it in the problem: the file is missing, unreadable, or its content is wrong. */
function fileProblems(name: SettingName, path: string, contentProblem: (content: Buffer) => string | undefined): string[] {
  let content: Buffer
  try {
    content = readFileSync(path)
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err)
    return [`${name}: cannot read ${JSON.stringify(path)} (${reason})`]
  }
  const problem = contentProblem(content)
  return problem === undefined ? [] : [`${name}: ${JSON.stringify(path)} ${problem}`]
}

function credsProblem(content: Buffer): string | undefined {
  const signed = signNonce(() => credsAuthenticator(content)(PROBE_NONCE))
  if (typeof signed === 'string') return `is not a NATS credentials file (${signed})`
  if (!('jwt' in signed) || typeof signed.jwt !== 'string' || !JWT_SHAPE.test(signed.jwt)) return 'is not a NATS credentials file (its first block is not a JWT)'
  return userKeyProblem(signed)
}

function seedProblem(content: Buffer): string | undefined {
  const seed = new TextEncoder().encode(content.toString('utf8').trim())
  const signed = signNonce(() => nkeyAuthenticator(seed)(PROBE_NONCE))
  if (typeof signed === 'string') return `does not hold an nkey seed (${signed})`
  return userKeyProblem(signed)
}

/** The authenticator's answer, or why it threw. */
function signNonce(sign: () => Auth): object | string {
  try {
    return sign() ?? {}
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
}

function userKeyProblem(signed: object): string | undefined {
  const publicKey = 'nkey' in signed && typeof signed.nkey === 'string' ? signed.nkey : ''
  return publicKey.startsWith('U') ? undefined : `holds a seed of another kind than a user's (its public key starts with ${publicKey.slice(0, 1)}, a user's with U; a user seed starts with SU)`
}

function certificatesProblem(content: Buffer): string | undefined {
  const blocks = content.toString('utf8').match(PEM_CERTIFICATE) ?? []
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)'
  for (const block of blocks) {
    let certificate: X509Certificate
    try {
      certificate = new X509Certificate(block)
    } catch (err) {
      return `holds a certificate that does not parse (${err instanceof Error ? err.message : String(err)})`
    }
    if (Date.parse(certificate.validTo) < Date.now()) return `holds a certificate that expired on ${certificate.validTo} (${certificate.subject.replace(/\n/g, ', ')})`
  }
  return undefined
}

function keyPairProblems(certPath: string, keyPath: string): string[] {
  try {
    createSecureContext({ cert: readFileSync(certPath), key: readFileSync(keyPath) })
    return []
  } catch (err) {
    return [`NATS_TLS_KEY_FILE: ${JSON.stringify(keyPath)} is not the private key of NATS_TLS_CERT_FILE (${err instanceof Error ? err.message : String(err)})`]
  }
}
