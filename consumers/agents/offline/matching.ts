/**
 * Deterministic relevance scoring: which subspecialties of an agent, and which specialists,
 * a brief is about. Words of the brief that appear in an id, name or playbook keyword count
 * 3; words that appear only in a description count 1. Words naming the agent itself ("seo",
 * "email") say which agent, not which subspecialty, so they count for the agent only, and
 * more than its playbook keywords do. A subspecialty named word for word ("paid social")
 * earns a bonus. Ties keep catalogue order.
 */
import type { Agent, AgentType, Subspecialty } from '../../../src/domain/agents/catalogue.js'
import { PLAYBOOKS, subspecialtyPlaybook } from './playbooks/index.js'
import { type Term, wordsOf } from './text.js'

const STRONG = 3
const WEAK = 1
const PHRASE = 6
const IDENTITY_WORD = 6
const AGENT_WORD = 3

export interface SubspecialtyPick {
  readonly subspecialty: Subspecialty
  readonly score: number
  /** Words of the brief that matched, in brief order; empty for a fallback pick. */
  readonly matched: readonly Term[]
}

/** Computed once per key: the catalogue is static, and every run scores against it. */
function once<K, V>(compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>()
  return (key) => {
    let value = known.get(key)
    if (value === undefined) {
      value = compute(key)
      known.set(key, value)
    }
    return value
  }
}

/** Words of the agent's own type and name, e.g. "paid" and "media" for the Paid Media Specialist. */
const identityWords = once((typeAndName: string) => new Set(wordsOf(typeAndName.replace(/-/g, ' '))))
// By type and name, not by object: the supervisor scores a copy of itself without its delegation subspecialty.
const identityOf = (agent: Agent): ReadonlySet<string> => identityWords(`${agent.type} ${agent.name}`)

const agentKeywordsOf = once((type: AgentType) => new Set(wordsOf(PLAYBOOKS[type].keywords.join(' '))))

interface Vocabulary {
  /** Words of the id, name and playbook keywords. */
  readonly strong: ReadonlySet<string>
  /** Words of the description. */
  readonly weak: ReadonlySet<string>
  /** The multi-word id and name, as words, and as they read in a brief's text (space-delimited). */
  readonly phrases: readonly { readonly words: readonly string[]; readonly text: string }[]
}

/**
 * Keyed by the catalogue's own subspecialty objects, which every copy of an agent shares: each
 * agent's are its own (catalogue.ts freezes a copy of each), so the object says the type too.
 */
const vocabularies = new WeakMap<Subspecialty, Vocabulary>()

function vocabulary(type: AgentType, sub: Subspecialty): Vocabulary {
  let known = vocabularies.get(sub)
  if (!known) {
    const keywords = subspecialtyPlaybook(type, sub.id)?.keywords ?? []
    known = {
      strong: new Set(wordsOf(`${sub.id.replace(/-/g, ' ')} ${sub.name} ${keywords.join(' ')}`)),
      weak: new Set(wordsOf(sub.description)),
      phrases: [sub.id.replace(/-/g, ' '), sub.name]
        .map(wordsOf)
        .filter((words) => words.length > 1)
        .map((words) => ({ words, text: ` ${words.join(' ')} ` })),
    }
    vocabularies.set(sub, known)
  }
  return known
}

/** The words of a multi-word id or name of the subspecialty that the brief says word for word. */
function phraseIn(type: AgentType, sub: Subspecialty, briefText: string): readonly string[] {
  return vocabulary(type, sub).phrases.find((phrase) => briefText.includes(phrase.text))?.words ?? []
}

function scoreSubspecialty(type: AgentType, sub: Subspecialty, brief: readonly Term[]): SubspecialtyPick {
  const { strong, weak } = vocabulary(type, sub)
  let score = 0
  const matched: Term[] = []
  for (const term of brief) {
    const points = strong.has(term.key) ? STRONG : weak.has(term.key) ? WEAK : 0
    if (points > 0) matched.push(term)
    score += points
  }
  return { subspecialty: sub, score, matched }
}

/** Every subspecialty of the agent with its score, best first, ties in catalogue order. */
export function rankSubspecialties(agent: Agent, brief: readonly Term[]): SubspecialtyPick[] {
  const identity = identityOf(agent)
  const specific = brief.filter((term) => !identity.has(term.key))
  const briefText = ` ${brief.map((term) => term.key).join(' ')} `
  return agent.subspecialties
    .map((sub, index) => {
      const pick = scoreSubspecialty(agent.type, sub, specific)
      const phrase = phraseIn(agent.type, sub, briefText)
      if (phrase.length === 0) return { pick, index }
      const matched = brief.filter((term) => pick.matched.includes(term) || phrase.includes(term.key))
      return { pick: { ...pick, score: pick.score + PHRASE, matched }, index }
    })
    .sort((a, b) => b.pick.score - a.pick.score || a.index - b.index)
    .map(({ pick }) => pick)
}

/**
 * The subspecialties to cover: the matched ones (at most `max`, and with `focused` only those
 * scoring at least half the best); when fewer than `min` matched, topped up with the agent's
 * first subspecialties; when none matched, the first `max`.
 */
export function pickSubspecialties(agent: Agent, brief: readonly Term[], max: number, min: number, focused = false): SubspecialtyPick[] {
  const ranked = rankSubspecialties(agent, brief)
  const top = ranked[0]?.score ?? 0
  const matched = ranked.filter((pick) => pick.score > 0 && (!focused || pick.score * 2 >= top)).slice(0, max)
  const wanted = matched.length === 0 ? max : min
  const chosen = new Set(matched.map((pick) => pick.subspecialty.id))
  const fallback = agent.subspecialties
    .filter((sub) => !chosen.has(sub.id))
    .slice(0, Math.max(0, wanted - matched.length))
    .map((subspecialty) => ({ subspecialty, score: 0, matched: [] }))
  return [...matched, ...fallback]
}

export interface SpecialistPick {
  readonly agent: Agent
  readonly score: number
  readonly matched: readonly Term[]
}

/** How strongly a brief calls for a specialist: agent-level words plus its two best subspecialties. */
export function scoreSpecialist(agent: Agent, brief: readonly Term[]): SpecialistPick {
  const identity = identityOf(agent)
  const keywords = agentKeywordsOf(agent.type)
  const ranked = rankSubspecialties(agent, brief)
  const matched = new Set<Term>()
  let score = 0
  for (const term of brief) {
    const points = identity.has(term.key) ? IDENTITY_WORD : keywords.has(term.key) ? AGENT_WORD : 0
    if (points > 0) matched.add(term)
    score += points
  }
  for (const pick of ranked.slice(0, 2)) {
    score += pick.score
    for (const term of pick.matched) matched.add(term)
  }
  return { agent, score, matched: brief.filter((term) => matched.has(term)) }
}

export const FALLBACK_SPECIALISTS: readonly AgentType[] = ['paid-media', 'seo', 'email-marketing']

/**
 * 2–4 specialists for a brief: those scoring at least half the best score, best first (ties
 * in the order given). With none matched, all of FALLBACK_SPECIALISTS; with one, topped up from it.
 */
export function pickSpecialists(specialists: readonly Agent[], brief: readonly Term[], max = 4, min = 2): SpecialistPick[] {
  const ranked = specialists
    .map((agent, index) => ({ pick: scoreSpecialist(agent, brief), index }))
    .sort((a, b) => b.pick.score - a.pick.score || a.index - b.index)
    .map(({ pick }) => pick)
  const best = ranked[0]?.score ?? 0
  const chosen = ranked.filter((pick) => pick.score > 0 && pick.score * 2 >= best).slice(0, max)
  const wanted = chosen.length === 0 ? FALLBACK_SPECIALISTS.length : min
  for (const type of FALLBACK_SPECIALISTS) {
    if (chosen.length >= wanted) break
    const agent = specialists.find((candidate) => candidate.type === type)
    if (agent !== undefined && !chosen.some((pick) => pick.agent.type === type)) chosen.push({ agent, score: 0, matched: [] })
  }
  return chosen
}
