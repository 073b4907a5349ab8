import type { ProposedAction } from '../../src/domain/actions/proposed-action.js'

/**
 * A live marketing platform (an ad account, a social profile, an email tool) that can
 * carry out an approved write action. Only autonomous sessions reach one.
 */
export interface PlatformConnector {
  readonly platform: string
  /** Makes the change; resolves with the platform's reference for it (a post id, say). */
  execute(action: ProposedAction, signal: AbortSignal): Promise<{ readonly reference: string }>
}

export interface PlatformConnectors {
  /** The connector for a platform, or null when none is reachable from this deployment. */
  find(platform: string): PlatformConnector | null
}

/** This deployment connects to no platform: autonomous actions are recorded as not executed. */
export const NO_CONNECTORS: PlatformConnectors = { find: () => null }
