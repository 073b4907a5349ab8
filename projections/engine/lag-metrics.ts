import type { JetStreamManager } from '@nats-io/jetstream'
import type { MatsMetrics } from '../../src/infra/metrics/mats-metrics.js'
import type { Projection } from './projection.js'
import type { ReadModels } from './read-models.js'

interface Lag {
  readonly events: number
  readonly seconds: number
}

/**
 * How far each projection's active generation is behind its stream, read when scraped from
 * the stream's state and the stored checkpoints: in events (the stream's last sequence minus
 * the checkpoint) and in seconds (the age of the oldest event not applied yet; 0 when caught
 * up). A projector that stalls shows both rising. The same in every projector process.
 */
export function watchProjectionLag(metrics: MatsMetrics, jsm: JetStreamManager, readModels: ReadModels, projections: readonly Projection[]): void {
  let scrape: Promise<Map<string, Lag>> | undefined
  // Both gauges are read in one scrape: one pass serves them.
  const lags = () => {
    scrape ??= measure(jsm, readModels, projections).finally(() =>
      setTimeout(() => {
        scrape = undefined
      }, 500).unref(),
    )
    return scrape
  }
  metrics.labeledGaugeOnScrape('projection_lag_events', 'Events of its stream a projection has not applied yet', ['projection'], async () =>
    [...(await lags())].map(([projection, lag]) => [{ projection }, lag.events] as const),
  )
  metrics.labeledGaugeOnScrape('projection_lag_seconds', 'Age of the oldest event a projection has not applied yet (0 when caught up)', ['projection'], async () =>
    [...(await lags())].map(([projection, lag]) => [{ projection }, lag.seconds] as const),
  )
}

async function measure(jsm: JetStreamManager, readModels: ReadModels, projections: readonly Projection[]): Promise<Map<string, Lag>> {
  const heads = new Map<string, Promise<number>>()
  const headOf = (stream: string) => {
    if (!heads.has(stream))
      heads.set(
        stream,
        jsm.streams.info(stream).then((info) => info.state.last_seq),
      )
    return heads.get(stream)!
  }
  const result = new Map<string, Lag>()
  await Promise.all(
    projections.map(async (projection) => {
      const [head, applied] = await Promise.all([headOf(projection.stream), readModels.checkpoint(projection, readModels.generationOf(projection))])
      const events = Math.max(0, head - applied)
      const oldest = events > 0 ? await jsm.streams.getMessage(projection.stream, { seq: applied + 1 }).catch(() => null) : null
      result.set(projection.name, { events, seconds: oldest ? Math.max(0, (Date.now() - oldest.time.getTime()) / 1000) : 0 })
    }),
  )
  return result
}
