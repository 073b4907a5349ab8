/**
 * The peer of a mats worker for target 1: a BullMQ worker at the same concurrency whose
 * processor makes the same model calls (the OpenAI SDK mats uses, with the same 2 retries,
 * against the same fake server, with the same tool in a loop until the model answers text), in a child process of
 * its own so that its CPU and memory can be read as a mats worker's are.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Worker } from 'bullmq'
import { Redis } from 'ioredis'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { watchProcess, statsNow, type ProcessStats } from './child-stats.js'
import { benchNodeFlags } from '../node-flags.js'

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'remember_fact', description: 'Remember a fact about the company', parameters: { type: 'object', properties: { fact: { type: 'string' } }, required: ['fact'] } },
  },
]
const MAX_STEPS = 12

export interface PeerWorker {
  stats(): Promise<ProcessStats>
  stop(): Promise<void>
}

export function startBullmqWorker(redisUrl: string, queue: string, concurrency: number, modelBaseUrl: string): Promise<PeerWorker> {
  const env = { ...process.env, PEER_REDIS_URL: redisUrl, PEER_QUEUE: queue, PEER_CONCURRENCY: String(concurrency), PEER_MODEL_URL: modelBaseUrl }
  const child = fork(fileURLToPath(import.meta.url), ['--peer-worker'], { execArgv: [...benchNodeFlags(), '--import', 'tsx'], env })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const waiting: ((answer: unknown) => void)[] = []
  child.on('message', (answer) => waiting.shift()?.(answer))
  const next = () => new Promise<unknown>((resolve) => waiting.push(resolve))
  return next().then(() => ({
    async stats() {
      const answer = next()
      child.send('stats')
      return ((await answer) as { stats: ProcessStats }).stats
    },
    async stop() {
      child.send('stop')
      await exited
    },
  }))
}

/** One agent run: model calls with the tool's results sent back, until the model answers text. */
async function run(client: OpenAI, brief: string): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are the SEO Specialist of a marketing team.' },
    { role: 'user', content: brief },
  ]
  const learned: string[] = []
  for (let step = 0; step < MAX_STEPS; step++) {
    const completion = await client.chat.completions.create({ model: 'model-under-test', messages, tools: TOOLS })
    const message = completion.choices[0]?.message
    if (!message) throw new Error('no answer')
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return message.content ?? ''
    messages.push(message)
    for (const call of calls) {
      if (call.type === 'function') learned.push(call.function.arguments)
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'remembered' })
    }
  }
  throw new Error('step limit')
}

async function serve(): Promise<void> {
  const client = new OpenAI({ baseURL: process.env.PEER_MODEL_URL, apiKey: 'sk-peer', maxRetries: 2 })
  const connection = new Redis(process.env.PEER_REDIS_URL ?? '', { maxRetriesPerRequest: null })
  const worker = new Worker(process.env.PEER_QUEUE ?? '', async (job) => ({ result: await run(client, String(job.data.brief)) }), {
    connection,
    concurrency: Number(process.env.PEER_CONCURRENCY),
  })
  await worker.waitUntilReady()
  const watch = watchProcess()
  process.send?.({ ready: true })
  process.on('message', (question: string) => {
    if (question === 'stop') return void worker.close().finally(() => process.exit(0))
    process.send?.({ stats: statsNow(watch) })
  })
}

if (process.argv.includes('--peer-worker')) await serve()
