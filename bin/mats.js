#!/usr/bin/env node
// The one entry point for every role and operator task. It runs the tsc build in dist/
// (`npm run build`; `npm start` builds when needed); when dist/ is missing or older than the
// sources, as in a checkout under test, it runs the sources through tsx instead: slower to
// start (about a second of compiling), never stale.
import module from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DIST_ENTRY, distIsCurrent } from './dist.js'

// Node 22.1+: V8's compiled code kept on disk makes each later run start in about half the
// time. Not for the long-running roles: the cache stays resident (~10 MiB) and they start once.
const command = process.argv[2]
if (command !== 'start' && command !== 'dev') module.enableCompileCache?.()

const root = resolve(import.meta.dirname, '..')
if (distIsCurrent(root)) {
  await import(pathToFileURL(join(root, DIST_ENTRY)).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}
