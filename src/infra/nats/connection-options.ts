import { readFileSync } from 'node:fs'
import { credsAuthenticator, nkeyAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator, type Authenticator, type NodeConnectionOptions, type TlsOptions } from '@nats-io/transport-node'
import type { Config } from '../../config.js'
import { natsTlsRequired } from '../../nats-config.js'

type NatsSettings = Pick<
  Config,
  | 'NATS_URL'
  | 'NATS_CREDS_FILE'
  | 'NATS_NKEY_SEED_FILE'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_TOKEN'
  | 'NATS_TLS'
  | 'NATS_TLS_CA_FILE'
  | 'NATS_TLS_CERT_FILE'
  | 'NATS_TLS_KEY_FILE'
  | 'NATS_TLS_SERVER_NAME'
>

/** nats.js hands its `tls` object to Node's `tls.connect`, so Node's `servername` passes through. */
interface TlsWithServerName extends TlsOptions {
  servername?: string
}

/**
 * How every mats process connects to NATS, from the variables config.ts validated.
 * Files are given by path and read at each (re)connect, so a rotated certificate or creds
 * file is picked up on the next reconnect without a restart.
 */
export function natsConnectionOptions(config: NatsSettings, name = 'mats'): NodeConnectionOptions {
  const options: NodeConnectionOptions = {
    servers: config.NATS_URL.split(','),
    name,
    maxReconnectAttempts: -1,
    // Back within half a second of a restarted server (nats.js waits 2 s by default): in-progress
    // acks and worker heartbeats must reach it before the ack wait runs out (invariant 11).
    reconnectTimeWait: 500,
    // No stack captured up front for every request (measured: 6 % of a busy process's CPU); errors still carry ours.
    noAsyncTraces: true,
  }
  const authenticator = natsAuthenticator(config)
  if (authenticator) options.authenticator = authenticator
  if (natsTlsRequired(config)) options.tls = natsTls(config)
  return options
}

function natsAuthenticator(config: NatsSettings): Authenticator | undefined {
  const { NATS_CREDS_FILE: creds, NATS_NKEY_SEED_FILE: seed, NATS_USER: user, NATS_PASSWORD: password, NATS_TOKEN: token } = config
  if (creds !== undefined) return credsAuthenticator(() => readFileSync(creds))
  if (seed !== undefined) return nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(seed, 'utf8').trim()))
  if (user !== undefined) return usernamePasswordAuthenticator(user, password)
  if (token !== undefined) return tokenAuthenticator(token)
  return undefined
}

/** An object, even empty, makes nats.js refuse a server that does not offer TLS. */
function natsTls(config: NatsSettings): TlsWithServerName {
  const tls: TlsWithServerName = {}
  if (config.NATS_TLS_CA_FILE !== undefined) tls.caFile = config.NATS_TLS_CA_FILE
  if (config.NATS_TLS_CERT_FILE !== undefined) tls.certFile = config.NATS_TLS_CERT_FILE
  if (config.NATS_TLS_KEY_FILE !== undefined) tls.keyFile = config.NATS_TLS_KEY_FILE
  if (config.NATS_TLS_SERVER_NAME !== undefined) tls.servername = config.NATS_TLS_SERVER_NAME
  return tls
}
