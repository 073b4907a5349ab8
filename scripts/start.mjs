#!/usr/bin/env node
// `npm start` on a fresh machine: installs what is missing, then runs `mats dev`
// (local NATS and MongoDB where none is configured or answering, then every role).
// Plain Node on purpose: it runs before any dependency is installed.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

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
const lockHash = () => createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex')

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
    socket.once('connect', () => { socket.destroy(); done(true) })
    socket.once('error', () => done(false))
  })
}

if (dependenciesStale()) {
  say('installing npm packages (npm ci)')
  run('npm', ['ci', '--no-audit', '--no-fund'])
  writeFileSync(stamp, lockHash())
}

const natsPort = Number(process.env.DEV_NATS_PORT || 4222)
const mongoPort = Number(process.env.DEV_MONGODB_PORT || 27017)
const needNats = !process.env.NATS_URL && !(await listening(natsPort)) && !onPath('nats-server')
const needMongo = !process.env.MONGODB_URL && !(await listening(mongoPort)) && !onPath('mongod') && !onPath('ferretdb')
if (needNats || needMongo) {
  say('building the local servers (nats-server, FerretDB) into .mats/bin: about a minute, once')
  run('bash', [join(root, 'scripts', 'install-servers.sh')])
}

const child = spawn(process.execPath, [join(root, 'bin', 'mats.js'), 'dev', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
// Ctrl-C reaches the whole process group; mats stops itself and its servers, and we wait for it.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => child.kill('SIGTERM'))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
