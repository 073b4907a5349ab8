#!/usr/bin/env node
// The one entry point for every role and operator task. TypeScript runs through tsx's
// loader, so there is no build step between a checkout and a running service.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
