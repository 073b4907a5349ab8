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
import { once } from './once.js'
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

/** Words of the agent's own type and name, e.g. "paid" and "media" for the Paid Media Specialist. */
const identityWords = once((typeAndName: string) => new Set(wordsOf(typeAndName.replace(/-/g, ' '))))

const agentKeywordsOf = once((type: AgentType) => new Set(wordsOf(PLAYBOOKS[type].keywords.join(' '))))

interface Phrase {
  readonly words: readonly string[]
}

interface Vocabulary {
  /** Words of the id, name and playbook keywords. */
  readonly strong: ReadonlySet<string>
  /** Words of the description. */
  readonly weak: ReadonlySet<string>
  /** The multi-word id and name. */
  readonly phrases: readonly Phrase[]
}

function vocabularyOf(type: AgentType, sub: Subspecialty): Vocabulary {
  const keywords = subspecialtyPlaybook(type, sub.id)?.keywords ?? []
  return {
    strong: new Set(wordsOf(`${sub.id.replace(/-/g, ' ')} ${sub.name} ${keywords.join(' ')}`)),
    weak: new Set(wordsOf(sub.description)),
    phrases: [sub.id.replace(/-/g, ' '), sub.name]
      .map(wordsOf)
      .filter((words) => words.length > 1)
      .map((words) => ({ words })),
  }
}

/** Where a word of a brief scores among an agent's subspecialties: by position, and how much. */
interface Hit {
  readonly at: number
  readonly points: number
}

/** An agent's vocabularies turned around, so that a brief is scored in one lookup a word. */
interface AgentIndex {
  readonly identity: ReadonlySet<string>
  /** The agent's subspecialties as indexed, in catalogue order: an entry's position is its `at`. */
  readonly entries: readonly Subspecialty[]
  /** For each word, the entries (by position) whose vocabulary holds it, and how much it scores there. */
  readonly hits: ReadonlyMap<string, readonly Hit[]>
  /** For each word, the multi-word ids and names that start with it. */
  readonly phraseStarts: ReadonlyMap<string, readonly PhraseOf[]>
}

/** A multi-word id or name of the entry at `at`; `rank` 0 is its id, 1 its name (the id wins when a brief says both). */
interface PhraseOf {
  readonly at: number
  readonly rank: number
  readonly phrase: Phrase
}

const NO_HITS: readonly Hit[] = []
const NO_PHRASES: readonly PhraseOf[] = []

/** By agent object: the catalogue's are frozen singletons, and the supervisor keeps its one planning copy (supervisor.ts). */
const indexOf = once((agent: Agent): AgentIndex => {
  const vocabularies = agent.subspecialties.map((subspecialty) => vocabularyOf(agent.type, subspecialty))
  const hits = new Map<string, Hit[]>()
  const phraseStarts = new Map<string, PhraseOf[]>()
  vocabularies.forEach(({ strong, weak, phrases }, at) => {
    for (const word of new Set([...strong, ...weak])) listUnder(hits, word, { at, points: strong.has(word) ? STRONG : WEAK })
    for (const [rank, phrase] of phrases.entries()) listUnder(phraseStarts, phrase.words[0] ?? '', { at, rank, phrase })
  })
  return { identity: identityWords(`${agent.type} ${agent.name}`), entries: agent.subspecialties, hits, phraseStarts }
}, new WeakMap())

function listUnder<T>(lists: Map<string, T[]>, key: string, item: T): void {
  const list = lists.get(key)
  if (list) list.push(item)
  else lists.set(key, [item])
}

/** Whether the brief says the phrase word for word: its words in a row, from the brief's `start`th. */
function saysFrom(brief: readonly Term[], start: number, phrase: Phrase): boolean {
  return phrase.words.every((word, k) => brief[start + k]?.key === word)
}

const NOTHING_MATCHED: readonly Term[] = Object.freeze([])

/**
 * The agent's subspecialties the brief scores, best first, ties in catalogue order; those it
 * does not score are left out (chooseSubspecialties tops up from the catalogue). The brief's
 * words but the agent's identity words score by the vocabulary; a multi-word id or name said
 * word for word adds PHRASE, and its words count as matched too.
 */
export function rankSubspecialties(agent: Agent, brief: readonly Term[]): SubspecialtyPick[] {
  const { identity, entries, hits, phraseStarts } = indexOf(agent)
  // A word of a brief hits few subspecialties: the rest share one empty list and allocate nothing.
  const scores = new Array<number>(entries.length).fill(0)
  const matches = new Map<number, Term[]>()
  for (const term of brief) {
    if (identity.has(term.key)) continue
    for (const { at, points } of hits.get(term.key) ?? NO_HITS) {
      scores[at] = (scores[at] ?? 0) + points
      const matched = matches.get(at)
      if (matched) matched.push(term)
      else matches.set(at, [term])
    }
  }
  // A phrase said word for word starts at a word of the brief: only the phrases starting with one are checked, from there.
  const phrased = new Map<number, PhraseOf>()
  brief.forEach((term, start) => {
    for (const candidate of phraseStarts.get(term.key) ?? NO_PHRASES) {
      const known = phrased.get(candidate.at)
      if ((known === undefined || candidate.rank < known.rank) && saysFrom(brief, start, candidate.phrase)) phrased.set(candidate.at, candidate)
    }
  })
  const picks: SubspecialtyPick[] = []
  entries.forEach((subspecialty, at) => {
    const score = scores[at] ?? 0
    const matched = matches.get(at) ?? NOTHING_MATCHED
    const phrase = phrased.get(at)?.phrase
    if (phrase !== undefined) picks.push({ subspecialty, score: score + PHRASE, matched: brief.filter((term) => matched.includes(term) || phrase.words.includes(term.key)) })
    else if (score > 0) picks.push({ subspecialty, score, matched })
  })
  // Array.prototype.sort is stable: equal scores keep catalogue order.
  return picks.sort((a, b) => b.score - a.score)
}

/**
 * The subspecialties to cover, from the agent's ranking for a brief: the matched ones (at most
 * `max`, and with `focused` only those scoring at least half the best); when fewer than `min`
 * matched, topped up with the agent's first subspecialties; when none matched, the first `max`.
 */
export function chooseSubspecialties(agent: Agent, ranked: readonly SubspecialtyPick[], max: number, min: number, focused = false): SubspecialtyPick[] {
  const top = ranked[0]?.score ?? 0
  const matched = ranked.filter((pick) => pick.score > 0 && (!focused || pick.score * 2 >= top)).slice(0, max)
  const wanted = matched.length === 0 ? max : min
  const chosen = new Set(matched.map((pick) => pick.subspecialty.id))
  const fallback = agent.subspecialties
    .filter((sub) => !chosen.has(sub.id))
    .slice(0, Math.max(0, wanted - matched.length))
    .map((subspecialty) => ({ subspecialty, score: 0, matched: NOTHING_MATCHED }))
  return [...matched, ...fallback]
}

/** chooseSubspecialties from the agent's ranking for `brief`. */
export function pickSubspecialties(agent: Agent, brief: readonly Term[], max: number, min: number, focused = false): SubspecialtyPick[] {
  return chooseSubspecialties(agent, rankSubspecialties(agent, brief), max, min, focused)
}

export interface SpecialistPick {
  readonly agent: Agent
  readonly score: number
  readonly matched: readonly Term[]
  /** The specialist's subspecialties ranked for the brief: its section in the plan picks from them. */
  readonly ranked: readonly SubspecialtyPick[]
}

/** How strongly a brief calls for a specialist: agent-level words plus its two best subspecialties. */
export function scoreSpecialist(agent: Agent, brief: readonly Term[]): SpecialistPick {
  const { identity } = indexOf(agent)
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
  return { agent, score, matched: brief.filter((term) => matched.has(term)), ranked }
}

export const FALLBACK_SPECIALISTS: readonly AgentType[] = ['paid-media', 'seo', 'email-marketing']

/**
 * 2–4 specialists for a brief: those scoring at least half the best score, best first (ties
 * in the order given). With none matched, all of FALLBACK_SPECIALISTS; with one, topped up from it.
 */
export function pickSpecialists(specialists: readonly Agent[], brief: readonly Term[], max = 4, min = 2): SpecialistPick[] {
  // Array.prototype.sort is stable: equal scores keep the order given.
  const ranked = specialists.map((agent) => scoreSpecialist(agent, brief)).sort((a, b) => b.score - a.score)
  const best = ranked[0]?.score ?? 0
  const chosen = ranked.filter((pick) => pick.score > 0 && pick.score * 2 >= best).slice(0, max)
  const wanted = chosen.length === 0 ? FALLBACK_SPECIALISTS.length : min
  for (const type of FALLBACK_SPECIALISTS) {
    if (chosen.length >= wanted) break
    const scored = ranked.find((pick) => pick.agent.type === type)
    if (scored !== undefined && !chosen.some((pick) => pick.agent.type === type)) chosen.push({ ...scored, score: 0, matched: NOTHING_MATCHED })
  }
  return chosen
}
