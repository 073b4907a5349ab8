/**
 * Shape of the offline provider's per-agent knowledge. Action and KPI texts are templates:
 * `{company}`, `{industry}`, `{audience}` and `{site}` are filled from the session's company
 * context (or with generic wording when a field is unknown).
 */
export interface SubspecialtyPlaybook {
  /** Extra words (besides the subspecialty's id, name and description) that signal it in a brief. */
  readonly keywords: readonly string[]
  /** 3–5 concrete actions, most important first. */
  readonly actions: readonly string[]
  /** One checklist item naming what this subspecialty hands over. */
  readonly deliverable: string
}

export interface AgentPlaybook {
  /** One line: what this agent contributes to a growth plan's channel mix. */
  readonly role: string
  /** Extra words (besides the agent's type and name) that signal this agent in a brief. */
  readonly keywords: readonly string[]
  readonly kpis: readonly string[]
  /** Write actions this agent would only ever prepare as drafts awaiting approval. */
  readonly approvals: readonly string[]
  /** Keyed by subspecialty id, as in the catalogue. */
  readonly subspecialties: { readonly [id: string]: SubspecialtyPlaybook }
}
