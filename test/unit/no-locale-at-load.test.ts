import t from 'tap'

/**
 * Formatting or comparing for a locale makes V8 load ICU's tables out of the node binary: 7 to
 * 8 MiB of resident memory for the rest of the process's life. A schema description built
 * with `toLocaleString` when its module loaded cost every idle process that much (2026-11-27).
 * Given the locale-sensitive built-ins recording their callers, when every module `mats start`
 * loads is imported, then none of mats' own code called one.
 */
const LOCALE_BUILT_INS: [object, string][] = [
  [Number.prototype, 'toLocaleString'],
  [Date.prototype, 'toLocaleString'],
  [Date.prototype, 'toLocaleDateString'],
  [Date.prototype, 'toLocaleTimeString'],
  [String.prototype, 'localeCompare'],
  [String.prototype, 'toLocaleUpperCase'],
  [String.prototype, 'toLocaleLowerCase'],
  [Array.prototype, 'toLocaleString'],
]
const INTL_CONSTRUCTORS = ['NumberFormat', 'DateTimeFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter'] as const
const OURS = /\/(src|consumers|projections)\/[^:]+\.ts/

t.test('given locale-sensitive built-ins that record their callers, when every module mats start loads is imported, then none of ours called one', async (t) => {
  const calls: string[] = []
  let recorded = 0
  const record = (name: string) => {
    recorded++
    const ours = new Error().stack?.split('\n').find((line) => OURS.test(line))
    if (ours) calls.push(`${name} from ${ours.trim()}`)
  }
  for (const [target, method] of LOCALE_BUILT_INS) {
    const original = Reflect.get(target, method) as (...args: unknown[]) => unknown
    Reflect.set(target, method, function (this: unknown, ...args: unknown[]) {
      record(method)
      return original.apply(this, args)
    })
  }
  for (const name of INTL_CONSTRUCTORS) {
    const original = Intl[name] as unknown as new (...args: unknown[]) => object
    Reflect.set(
      Intl,
      name,
      new Proxy(original, {
        construct(target, args) {
          record(`Intl.${name}`)
          return Reflect.construct(target, args)
        },
      }),
    )
  }

  // What a process imports to start every role: the service, the CLI that starts it, and the console it serves.
  await import('../../src/service.js')
  await import('../../src/cli/commands/start.js')
  t.same(calls, [], 'no locale-sensitive call at load')

  const before = recorded
  void (1000).toLocaleString('en-US')
  void new Intl.NumberFormat('en-US')
  t.equal(recorded - before, 2, 'the recorders see a call and a construction')
  t.ok(OURS.test('    at file:///work/main/src/contract/tasks.ts:95:42'), 'a frame of ours is recognised')
})
