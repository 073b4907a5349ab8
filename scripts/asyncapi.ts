// Rewrites the generated part of docs/asyncapi.yaml (components.schemas) from src/domain/events.
import { readFileSync, writeFileSync } from 'node:fs'
import { renderAsyncApi } from '../src/docs/asyncapi.js'

const path = new URL('../docs/asyncapi.yaml', import.meta.url)
writeFileSync(path, renderAsyncApi(readFileSync(path, 'utf8')))
console.log('docs/asyncapi.yaml: components.schemas written from src/domain/events')
