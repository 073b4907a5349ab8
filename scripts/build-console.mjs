#!/usr/bin/env node
// Builds the web console (console/src, Preact + TypeScript) into dist/console: one hashed
// script and stylesheet under assets/ and an index.html naming them. esbuild bundles it
// (no CDN, nothing fetched at run time). `npm run build` and `npm start` run it after tsc.
import { createHash } from 'node:crypto'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HTML = (script, style) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mats console</title>
<link rel="stylesheet" href="/console/${style}">
<script type="module" src="/console/${script}"></script>
</head>
<body><div id="app"></div></body>
</html>
`

/** Builds into `outDir` (dist/console by default), replacing it whole only once the build has succeeded. */
export async function buildConsole(root, outDir = join(root, 'dist', 'console')) {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [join(root, 'console', 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: 'out',
    metafile: false,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  const staging = `${outDir}.${process.pid}.tmp`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(join(staging, 'assets'), { recursive: true })
  const names = {}
  for (const file of result.outputFiles) {
    const ext = file.path.endsWith('.css') ? 'css' : 'js'
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 12)
    names[ext] = `assets/app-${hash}.${ext}`
    writeFileSync(join(staging, names[ext]), file.contents)
  }
  writeFileSync(join(staging, 'index.html'), HTML(names.js, names.css))
  writeFileSync(join(staging, '.built'), `${new Date().toISOString()}\n`)
  rmSync(outDir, { recursive: true, force: true })
  try {
    renameSync(staging, outDir)
  } catch (err) {
    // Another build (a parallel test file) put its copy there first: the same sources, keep it.
    rmSync(staging, { recursive: true, force: true })
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
  }
  return outDir
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
  await buildConsole(root).catch((err) => {
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  })
}
