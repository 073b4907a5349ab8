// Whether dist/ (the tsc build) matches the sources, and how to rebuild it. Plain Node with
// no dependencies: bin/mats.js asks on every run, scripts/start.mjs before it starts mats.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const DIST_ENTRY = join('dist', 'src', 'cli', 'main.js')
const STAMP = join('dist', '.built')
const SOURCE_DIRS = ['src', 'projections', 'consumers', 'console']
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json']

/**
 * True when dist/ was built after the last change to any source. An image ships dist/
 * without sources, so there is nothing newer to find. A listing and a stat per file: a few
 * milliseconds for the ~250 files here.
 */
export function distIsCurrent(root) {
  if (!existsSync(join(root, STAMP)) || !existsSync(join(root, DIST_ENTRY))) return false
  const builtAt = statSync(join(root, STAMP)).mtimeMs
  return newestSource(root) <= builtAt
}

function newestSource(root) {
  let newest = 0
  const consider = (path) => {
    newest = Math.max(newest, statSync(path).mtimeMs)
  }
  for (const file of SOURCE_FILES) if (existsSync(join(root, file))) consider(join(root, file))
  for (const dir of SOURCE_DIRS) {
    if (!existsSync(join(root, dir))) continue
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      // A directory's mtime changes when a file in it is added, removed or renamed.
      consider(join(entry.parentPath ?? entry.path, entry.name))
    }
    consider(join(root, dir))
  }
  return newest
}

/** Runs tsc (type-checked, as in CI), builds the console, and stamps dist/ only if both succeed. */
export function buildDist(root) {
  rmSync(join(root, STAMP), { force: true })
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) return false
  // The web console (console/, bundled by esbuild into dist/console): served by the api role at /console.
  const consoleBuild = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.mjs')], { cwd: root, stdio: 'inherit' })
  if (consoleBuild.status !== 0) return false
  writeFileSync(join(root, STAMP), `${new Date().toISOString()}\n`)
  return true
}
