import type { ProposedAction } from '../../src/domain/actions/proposed-action.js'

/**
 * A live marketing platform (an ad account, a social profile, an email tool) that can
 * carry out a write action: one an autonomous session's run proposes, or one a human
 * approved (consumers/connectors/approved-actions.ts).
 */
export interface PlatformConnector {
  readonly platform: string
  /**
   * Makes the change; resolves with the platform's reference for it (a post id, say).
   * An approved action may be delivered again after a crash: `actionId` is the key a
   * connector gives the platform so that the change is made once.
   */
  execute(action: ProposedAction & { readonly actionId: string }, signal: AbortSignal): Promise<{ readonly reference: string }>
}

export interface PlatformConnectors {
  /** The connector for a platform, or null when none is reachable from this deployment. */
  find(platform: string): PlatformConnector | null
}

/** This deployment connects to no platform: autonomous actions are recorded as not executed, approved ones stay approved. */
export const NO_CONNECTORS: PlatformConnectors = { find: () => null }
