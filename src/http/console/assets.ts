import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Asset {
  readonly body: Buffer
  readonly contentType: string
  /** Built names carry a content hash: they never change, so browsers may keep them. */
  readonly immutable: boolean
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
}

/** dist/console under the package root (the sources' root, or the image's /app): where `npm run build` puts the console. */
export function consoleDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
  return join(dir, 'dist', 'console')
}

/**
 * Every file of the built console, read once into memory (a few hundred KB) and served by
 * exact path only: no request path ever reaches the file system, so none can escape it.
 */
export function loadAssets(directory: string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  if (!existsSync(join(directory, 'index.html'))) return assets
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const contentType = CONTENT_TYPES[extname(entry.name)]
    if (!contentType) continue
    const name = relative(directory, path).split(sep).join('/')
    assets.set(name, { body: readFileSync(path), contentType, immutable: name.startsWith('assets/') })
  }
  return assets
}
