import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

const PREFIX = 'mats_'
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120]
const RUN_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 900]
const SLOT_WAIT_BUCKETS = [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** What one process measures, in the Prometheus text format (GET /metrics; docs/operations.md#metrics). */
export class MatsMetrics {
  readonly registry = new Registry()
  private readonly httpRequests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  })
  private readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  })
  private readonly tasks = new Counter({
    name: `${PREFIX}tasks_total`,
    help: 'Tasks created (api), started and ended (worker), by agent, event and failure reason',
    labelNames: ['event', 'agent', 'reason'],
    registers: [this.registry],
  })
  private readonly runDuration = new Histogram({
    name: `${PREFIX}task_run_duration_seconds`,
    help: 'Agent runs, from claim to the end of the run, by agent and outcome',
    labelNames: ['agent', 'outcome'],
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  })
  private readonly tokens = new Counter({
    name: `${PREFIX}model_tokens_total`,
    help: 'Language-model tokens the runs used, by provider, model and direction',
    labelNames: ['provider', 'model', 'direction'],
    registers: [this.registry],
  })
  private readonly cost = new Counter({ name: `${PREFIX}model_cost_usd_total`, help: 'What the runs cost, by provider and model', labelNames: ['provider', 'model'], registers: [this.registry] })
  private readonly rateLimited = new Counter({
    name: `${PREFIX}rate_limit_rejections_total`,
    help: 'Requests refused with 429, by rate-limit group',
    labelNames: ['group'],
    registers: [this.registry],
  })
  private readonly projectionApplied = new Gauge({
    name: `${PREFIX}projection_applied_sequence`,
    help: 'Stream sequence of the newest event a projection wrote in this process',
    labelNames: ['projection', 'stream'],
    registers: [this.registry],
  })

  private readonly batchSlotWaits = new Counter({
    name: `${PREFIX}event_store_batch_slot_waits_total`,
    help: 'Atomic batches (multi-event appends) that waited in line for one of the process slots on their stream (NATS_BATCHES_PER_STREAM), by stream',
    labelNames: ['stream'],
    registers: [this.registry],
  })
  private readonly batchSlotWait = new Histogram({
    name: `${PREFIX}event_store_batch_slot_wait_seconds`,
    help: 'Time each atomic batch waited for its slot (0 when one was free), by stream',
    labelNames: ['stream'],
    buckets: SLOT_WAIT_BUCKETS,
    registers: [this.registry],
  })
  private readonly batchSlotTimeouts = new Counter({
    name: `${PREFIX}event_store_batch_slot_timeouts_total`,
    help: 'Atomic batches that found no slot within NATS_TIMEOUT_MS and failed as unavailable (503), by stream',
    labelNames: ['stream'],
    registers: [this.registry],
  })
  private readonly batchResends = new Counter({
    name: `${PREFIX}event_store_batch_resends_total`,
    help: 'Atomic batches the server refused for lack of room (10176, or 10210 on nats-server 2.14+: its open batches at their limit) and this process sent again, by stream',
    labelNames: ['stream'],
    registers: [this.registry],
  })
  private readonly tickAttempts = new Counter({
    name: `${PREFIX}schedule_tick_attempts_total`,
    help: "Ticks a scheduler tried to store, by outcome: stored, or refused by the schedule's guard (another scheduler stored it first, ADR 0047)",
    labelNames: ['outcome'],
    registers: [this.registry],
  })

  private readonly dispatchStepDowns = new Counter({
    name: `${PREFIX}dispatch_source_step_downs_total`,
    help: "Step-downs of MATS_DISPATCH's leader a worker asked for, its source of TaskCreated silent (ADR 0069), by outcome: stepped, or refused (no answer, or no leader to step down)",
    labelNames: ['outcome'],
    registers: [this.registry],
  })

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX })
  }

  /** The roles this process runs (`api+worker+projector`), as a label on every series. */
  labelRoles(roles: readonly string[]): void {
    this.registry.setDefaultLabels({ role: roles.join('+') })
  }

  httpAnswered(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method, status: String(status) }
    this.httpRequests.inc(labels)
    this.httpDuration.observe(labels, seconds)
  }

  dispatchLeaderSteppedDown(outcome: 'stepped' | 'refused'): void {
    this.dispatchStepDowns.inc({ outcome })
  }

  taskCreated(agent: string): void {
    this.tasks.inc({ event: 'created', agent, reason: '' })
  }

  taskStarted(agent: string): void {
    this.tasks.inc({ event: 'started', agent, reason: '' })
  }

  /** A terminal event appended, by whoever appended it: the worker, a worker failing a lost one, a cancel of a pending one. */
  taskEnded(agent: string, ended: { outcome: 'completed' | 'failed'; reason?: string }): void {
    this.tasks.inc({ event: ended.outcome, agent, reason: ended.reason ?? '' })
  }

  /** An agent run that ended, with what it used. */
  runEnded(
    agent: string,
    ended: { outcome: 'completed' | 'failed'; seconds: number; usage: { provider: string; model: string; inputTokens: number; outputTokens: number } | null; costMicros: number },
  ): void {
    this.runDuration.observe({ agent, outcome: ended.outcome }, ended.seconds)
    if (!ended.usage) return
    const { provider, model } = ended.usage
    this.tokens.inc({ provider, model, direction: 'input' }, ended.usage.inputTokens)
    this.tokens.inc({ provider, model, direction: 'output' }, ended.usage.outputTokens)
    this.cost.inc({ provider, model }, ended.costMicros / 1_000_000)
  }

  rateLimitRejected(group: string): void {
    this.rateLimited.inc({ group })
  }

  /** A scheduler's attempt to store a tick's decision. */
  tickAttempted(outcome: 'stored' | 'refused'): void {
    this.tickAttempts.inc({ outcome })
  }

  projected(projection: string, stream: string, last: { seq: number }): void {
    this.projectionApplied.set({ projection, stream }, last.seq)
  }

  /** An atomic batch got its slot (BatchObserver, ADR 0034). */
  slotTaken(stream: string, seconds: number, queued: boolean): void {
    this.batchSlotWait.observe({ stream }, seconds)
    if (queued) this.batchSlotWaits.inc({ stream })
  }

  slotTimedOut(stream: string): void {
    this.batchSlotTimeouts.inc({ stream })
  }

  resent(stream: string): void {
    this.batchResends.inc({ stream })
  }

  /** A gauge read when scraped, e.g. from a consumer's state on the server. */
  gaugeOnScrape(name: string, help: string, read: () => Promise<number | null>): void {
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers: [this.registry],
      async collect() {
        const value = await read().catch(() => null)
        if (value !== null) this.set(value)
      },
    })
  }

  /** A gauge with labels read when scraped: one value per label set `read` returns. */
  labeledGaugeOnScrape<L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Promise<readonly (readonly [Record<L, string>, number])[]>): void {
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset()
        for (const [labels, value] of await read().catch(() => [])) this.set(labels, value)
      },
    })
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
