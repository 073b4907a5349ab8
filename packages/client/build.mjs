// Builds dist/ (JavaScript, declarations and their maps) for `npm pack`; run by `prepack`.
// tsc does not copy the generated src/schema.d.ts (a declaration file is an input, never an
// output), and dist/index.d.ts imports it, so it is copied beside it.
import { execFileSync } from 'node:child_process'
import { copyFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'

const here = (path) => new URL(path, import.meta.url)
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

rmSync(here('dist'), { recursive: true, force: true })
execFileSync(process.execPath, [tsc, '-p', here('tsconfig.json').pathname], { stdio: 'inherit' })
copyFileSync(here('src/schema.d.ts'), here('dist/schema.d.ts'))
