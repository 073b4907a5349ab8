import { ConfigError } from '../../config.js'
import { resealWebhookSecrets } from '../../commands/reseal-webhook-secrets/reseal-webhook-secrets.js'
import { SecretBox } from '../../infra/crypto/secret-box.js'
import { parse, print, unknownVerb, type OperatorAction } from '../io.js'

/**
 * `mats webhooks reseal`: every webhook secret sealed again under WEBHOOKS_SECRET_KEY,
 * opened with whichever of it and WEBHOOKS_PREVIOUS_SECRET_KEYS sealed it (docs/operations.md).
 */
export function webhooks([verb, ...rest]: string[]): OperatorAction {
  const { values } = parse(rest, {})
  if (verb !== 'reseal') throw unknownVerb('webhooks', verb, ['reseal'])
  return async (infra) => {
    const box = SecretBox.fromConfig(infra.config)
    if (!box) throw new ConfigError(['WEBHOOKS_SECRET_KEY: not set; it is the key to seal under (the old one goes in WEBHOOKS_PREVIOUS_SECRET_KEYS)'])
    const report = await resealWebhookSecrets(infra, box)
    print(values.json, values.json ? report : { webhooks: report.webhooks, resealed: report.resealed, failed: report.failed.map((f) => `${f.webhookId}: ${f.error}`).join('; ') || null })
    // Some are still under a key that may be about to go: the operator must not drop it yet.
    if (report.failed.length > 0) process.exitCode = 1
  }
}
