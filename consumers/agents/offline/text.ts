/** Pure text helpers for the offline provider: word matching, context filling, Markdown bits. */
import type { AgentRunRequest } from '../provider.js'

const STOPWORDS = new Set(
  (
    'a an and are as at be by can do for from get help how in into is it its me my need new of on or our ours out please ' +
    'so some that the their them then this those to up us want we what when which will with you your also about all more ' +
    'marketing marketer specialist manager agent plan create generate run'
  ).split(' '),
)

/** Lower-cases and folds spelling variants so "Optimisation" and "optimizations" meet. */
export function normalizeWord(raw: string): string {
  let word = raw.toLowerCase()
  word = word.replace(/is(e|es|ed|ing|ation|ations)$/, 'iz$1').replace(/ys(e|es|ed|ing)$/, 'yz$1')
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) word = word.slice(0, -1)
  return word
}

/** A meaningful word of a brief: `key` for matching, `text` as the brief spelled it. */
export interface Term {
  readonly key: string
  readonly text: string
}

/** The distinct meaningful words of a text, in order of first appearance. */
export function termsOf(text: string): Term[] {
  const terms = new Map<string, Term>()
  for (const raw of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue
    const key = normalizeWord(raw)
    if (!terms.has(key)) terms.set(key, { key, text: raw })
  }
  return [...terms.values()]
}

/** The distinct meaningful words of a text, normalised, in order of first appearance. */
export function wordsOf(text: string): string[] {
  return termsOf(text).map((term) => term.key)
}

export interface CompanyContext {
  readonly company: string
  readonly site: string
  readonly industry: string
  readonly audience: string
  /** Labels of the context fields that were not supplied, in display order. */
  readonly unknown: readonly string[]
  readonly rows: readonly (readonly [label: string, value: string | null])[]
}

const present = (value: string | null): string | null => (value !== null && value.trim() !== '' ? value.trim() : null)

/** Company context with generic stand-ins for unknown fields, so templates still read well. */
export function contextOf(session: AgentRunRequest['session']): CompanyContext {
  const rows: [string, string | null][] = [
    ['Company', present(session.companyName)],
    ['Website', present(session.companyUrl)],
    ['Industry', present(session.industry)],
    ['Target audience', present(session.targetAudience)],
  ]
  return {
    company: rows[0]?.[1] ?? 'the company',
    site: rows[1]?.[1] ?? 'the website',
    industry: rows[2]?.[1] ?? 'the industry',
    audience: rows[3]?.[1] ?? 'the target audience',
    unknown: rows.filter(([, value]) => value === null).map(([label]) => label),
    rows,
  }
}

const PLACEHOLDERS = ['company', 'site', 'industry', 'audience'] as const
type Placeholder = (typeof PLACEHOLDERS)[number]
const PLACEHOLDER = new RegExp(`\\{(${PLACEHOLDERS.join('|')})\\}`)
const isPlaceholder = (name: string | undefined): name is Placeholder => PLACEHOLDERS.some((placeholder) => placeholder === name)
/** Playbook templates split at their placeholders (text, name, text, …): a run fills some forty. Bounded, should a caller pass text of its own. */
const splitTemplates = new Map<string, readonly string[]>()
const MAX_SPLIT_TEMPLATES = 4096

/** Fills `{company}`, `{site}`, `{industry}` and `{audience}` in a playbook template. */
export function fill(template: string, ctx: CompanyContext): string {
  let pieces = splitTemplates.get(template)
  if (pieces === undefined) {
    pieces = template.split(PLACEHOLDER)
    if (splitTemplates.size < MAX_SPLIT_TEMPLATES) splitTemplates.set(template, pieces)
  }
  let filled = pieces[0] ?? ''
  for (let i = 1; i < pieces.length; i += 2) {
    const name = pieces[i]
    filled += (isPlaceholder(name) ? ctx[name] : '') + (pieces[i + 1] ?? '')
  }
  return filled
}

/** A Markdown block quote of arbitrary text, one quoted line per input line. */
export function quote(text: string): string {
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => (line.trim() === '' ? '>' : `> ${line.trimEnd()}`))
    .join('\n')
}

/** A one-line title: the task title, else the instruction's first line cut at a word boundary. */
export function titleOf(title: string | null, instruction: string, max = 80): string {
  const source = (present(title) ?? instruction.trim().split(/\r?\n/)[0] ?? '').replace(/\s+/g, ' ').trim()
  if (source.length <= max) return source
  const cut = source.slice(0, max)
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`
}

/** Joins a list in plain English: "a", "a and b", "a, b and c". */
export function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** Estimated tokens for a text: one token per four characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}
