#!/usr/bin/env node
// `npm run build`: compile src/, projections/ and consumers/ into dist/ (tsconfig.build.json).
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDist } from '../bin/dist.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
if (!buildDist(root)) process.exit(1)
