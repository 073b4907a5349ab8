import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Keys are `mats_` followed by 32 bytes from the CSPRNG in base64url (256 bits).
 * They are stored only as SHA-256: with that much entropy a slow password hash buys
 * nothing, and a fast one keeps authentication off the hot path's critical time.
 */
export const KEY_PREFIX = 'mats_'
const SECRET_BYTES = 32
const DISPLAY_CHARS = 8
const KEY_PATTERN = /^mats_[A-Za-z0-9_-]{43}$/

export interface GeneratedKey {
  readonly key: string
  readonly keyHash: string
  /** `mats_` plus 8 characters (48 bits of 256): enough to recognise a key, never to guess it. */
  readonly keyPrefix: string
}

export function generateApiKey(): GeneratedKey {
  const key = KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url')
  return { key, keyHash: hashApiKey(key), keyPrefix: key.slice(0, KEY_PREFIX.length + DISPLAY_CHARS) }
}

export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate)
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

const SHA256_HEX = /^[0-9a-f]{64}$/

/** Constant-time comparison of two SHA-256 hex digests; anything else is unequal. */
export function hashesEqual(a: string, b: string): boolean {
  if (!SHA256_HEX.test(a) || !SHA256_HEX.test(b)) return false
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
}
