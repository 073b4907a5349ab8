import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
const FORMAT = 'v1'

/**
 * Encrypts secrets that must be read back (webhook signing secrets) with AES-256-GCM under
 * the operator's key. A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url),
 * where the key id is the start of the key's SHA-256: it names the key without revealing
 * it, so a value sealed under an earlier key is opened with that key, found among `previous`.
 */
export class SecretBox {
  private readonly keys: ReadonlyMap<string, Buffer>
  private readonly currentId: string

  constructor(current: string, previous: readonly string[] = []) {
    const all = [current, ...previous].map((text) => Buffer.from(text, 'base64'))
    for (const key of all) if (key.length !== 32) throw new Error('a secret key must be 32 bytes, base64')
    this.keys = new Map(all.map((key) => [keyId(key), key]))
    this.currentId = keyId(all[0] as Buffer)
  }

  /** Builds the box from the configuration; null when webhooks have no key (they are off). */
  static fromConfig(config: { readonly WEBHOOKS_SECRET_KEY?: string | undefined; readonly WEBHOOKS_PREVIOUS_SECRET_KEYS: string }): SecretBox | null {
    if (!config.WEBHOOKS_SECRET_KEY) return null
    const previous = config.WEBHOOKS_PREVIOUS_SECRET_KEYS.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    return new SecretBox(config.WEBHOOKS_SECRET_KEY, previous)
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv(ALGORITHM, this.key(this.currentId), iv)
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return [FORMAT, this.currentId, iv, data, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.')
  }

  open(sealed: string): string {
    const [format, id, iv, data, tag] = sealed.split('.')
    if (format !== FORMAT || !id || !iv || !data || !tag) throw new Error('not a sealed secret')
    const decipher = createDecipheriv(ALGORITHM, this.key(id), Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  }

  /** Whether `sealed` is under the current key (and need not be sealed again). */
  isCurrent(sealed: string): boolean {
    return sealed.split('.')[1] === this.currentId
  }

  /** The same secret sealed under the current key (opened with whichever key sealed it). */
  reseal(sealed: string): string {
    return this.seal(this.open(sealed))
  }

  private key(id: string): Buffer {
    const key = this.keys.get(id)
    if (!key) throw new Error(`secret sealed under key ${id}, which is neither WEBHOOKS_SECRET_KEY nor in WEBHOOKS_PREVIOUS_SECRET_KEYS`)
    return key
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8)
}
