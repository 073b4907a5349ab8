#!/usr/bin/env node
// `npm start` on a fresh machine: installs what is missing, compiles dist/ when it is missing
// or older than the sources, then runs `mats dev` (local NATS and MongoDB where none is
// configured, then every role). Plain Node on purpose: it runs before any dependency is installed.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDist, distIsCurrent } from '../bin/dist.js'
import { DEV_NODE_FLAGS } from '../bin/node-flags.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const say = (line) => process.stdout.write(`[mats] ${line}\n`)

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    process.stderr.write(`[mats] \`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})\n`)
    process.exit(1)
  }
}

// npm rewrites package-lock.json after node_modules, so times cannot tell; a stamp of the
// lock file's content, written after a successful install, can.
const stamp = join(root, 'node_modules', '.mats-lock-sha256')
const lockHash = () =>
  createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex')

function dependenciesStale() {
  if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) return true
  // Installed by hand (npm install / npm ci): trust it, and watch the lock from now on.
  if (!existsSync(stamp)) writeFileSync(stamp, lockHash())
  return readFileSync(stamp, 'utf8') !== lockHash()
}

function onPath(name) {
  if (existsSync(join(root, '.mats', 'bin', name))) return true
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)))
}

function listening(port) {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      done(true)
    })
    socket.once('error', () => done(false))
  })
}

// Node 20 is past its end of life (2026-04-30) and some dependencies declare Node 22; mats
// still runs on 20.19+, so a newcomer on such a machine is told once, here, not stopped; npm's
// own EBADENGINE warnings (one block per such package, ~30) are kept out of the way below.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`[mats] Node ${process.versions.node} is too old: mats needs Node 22 or newer (24 LTS recommended). Without installing it: npx -y node@24 scripts/start.mjs\n`)
  process.exit(1)
}
const oldNode = major < 22
if (oldNode) say(`warning: Node ${process.versions.node} is past its end of life; mats runs on it but is tested on 24 LTS (npx -y node@24 scripts/start.mjs uses 24 without installing it)`)

if (dependenciesStale()) {
  say('installing npm packages (npm ci)')
  run('npm', ['ci', '--no-audit', '--no-fund', ...(oldNode ? ['--loglevel=error'] : [])])
  writeFileSync(stamp, lockHash())
}

const natsPort = Number(process.env.DEV_NATS_PORT || 4222)
const mongoPort = Number(process.env.DEV_MONGODB_PORT || 27017)
const needNats = !process.env.NATS_URL && !(await listening(natsPort)) && !onPath('nats-server')
const needMongo = !process.env.MONGODB_URL && !(await listening(mongoPort)) && !onPath('mongod') && !onPath('ferretdb')
if (needNats || needMongo) {
  say('building the local servers (nats-server, FerretDB) from source with Go into .mats/bin, once:')
  say('  Go downloads and compiles both with their dependencies: many minutes on 2 cores (28 min measured on a busy machine; README)')
  const started = Date.now()
  run('bash', [join(root, 'scripts', 'install-servers.sh')])
  say(`servers built in ${Math.round((Date.now() - started) / 1000)} s`)
}

if (!distIsCurrent(root)) {
  say('compiling the TypeScript sources into dist/ (tsc -p tsconfig.build.json), again only after a source changes: 88 to 148 s measured on 2 busy cores')
  const started = Date.now()
  if (!buildDist(root)) {
    process.stderr.write('[mats] the build failed (the type errors are above); fix them, or run the sources directly: node bin/mats.js dev\n')
    process.exit(1)
  }
  say(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

const child = spawn(process.execPath, [...DEV_NODE_FLAGS, join(root, 'bin', 'mats.js'), 'dev', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
// Ctrl-C reaches the whole process group; mats stops itself and its servers, and we wait for it.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => child.kill('SIGTERM'))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
