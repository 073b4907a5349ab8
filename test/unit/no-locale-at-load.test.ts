import { fileURLToPath } from 'node:url'
import t from 'tap'

/**
 * Formatting or comparing for a locale makes V8 load ICU's tables out of the node binary, for
 * the rest of the process's life: a schema description built with `toLocaleString` when its
 * module loaded cost every idle process some 8 MiB (bench:footprint, 2026-11-27). Given the
 * locale-sensitive built-ins recording their callers, when every module `mats start` loads is
 * imported, then no code of this repository called one.
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
const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url))
const THIS_FILE = fileURLToPath(import.meta.url)

/** The first frame of a stack in this repository's own code (not its dependencies, nor the recorders of this file), if any. */
function ownFrame(stack: string): string | undefined {
  return stack
    .split('\n')
    .slice(1)
    .find((line) => line.includes(REPOSITORY) && !line.includes('/node_modules/') && !line.includes(THIS_FILE))
}

t.test('given locale-sensitive built-ins that record their callers, when every module mats start loads is imported, then none of ours called one', async (t) => {
  const calls: string[] = []
  // Every frame: a call deep inside a dependency must still show the module of ours that made it.
  Error.stackTraceLimit = Number.POSITIVE_INFINITY
  const record = (name: string) => {
    const ours = ownFrame(new Error().stack ?? '')
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
    const handler: ProxyHandler<typeof Intl.NumberFormat> = {
      construct(target, args, newTarget) {
        record(`new Intl.${name}`)
        return Reflect.construct(target, args, newTarget)
      },
      apply(target, self, args) {
        record(`Intl.${name}`)
        return Reflect.apply(target, self, args)
      },
    }
    Reflect.set(Intl, name, new Proxy(Intl[name] as unknown as typeof Intl.NumberFormat, handler))
  }

  // What bin/mats.js loads before any command (src/cli/main.ts imports these), and `start`'s own.
  await Promise.all([import('../../src/config.js'), import('../../src/cli/usage.js'), import('../../src/cli/suggest.js'), import('../../src/cli/io.js')])
  await import('../../src/cli/commands/start.js')
  t.same(calls, [], 'no locale-sensitive call while the modules load')

  // The recorders see a call and a construction made from a module of this repository.
  const { formatLocally } = await import('../fixtures/locale-calls.js')
  t.equal(formatLocally(), '1,000 1')
  t.equal(calls.length, 2, 'both recorded')
  t.match(calls[0] ?? '', /^toLocaleString from .*test\/fixtures\/locale-calls\.ts/)
  t.match(calls[1] ?? '', /^Intl\.NumberFormat from .*test\/fixtures\/locale-calls\.ts/)
})
