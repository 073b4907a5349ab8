import { randomUUID } from 'node:crypto'
import t from 'tap'
import { BudgetExhaustedError } from '../../src/domain/errors.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { Budgets, type SpendDoc, type SpendView } from '../../src/commands/create-task/budget.js'
import { spendId } from '../../projections/index.js'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { anAccount, taskCreatedData } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, testLog } from '../helpers/service.js'

const RESERVATION_MICROS = 10_000

/**
 * The spend view's port, held in memory and driven by the test: `applyNext` lands just after
 * the next `get` has answered, before its caller goes on, as the live view's consumer loop
 * may apply a queued event between two turns of a request.
 */
class InterleavingSpendView implements SpendView {
  private doc: SpendDoc | null = null
  private readonly listeners: ((event: RecordedEvent) => void)[] = []
  private next: RecordedEvent | undefined

  applyAfterNextAnswer(event: RecordedEvent): void {
    this.next = event
  }

  async get(): Promise<{ doc: SpendDoc | null; caughtUp: boolean }> {
    const answer = { doc: this.doc, caughtUp: true }
    const event = this.next
    this.next = undefined
    if (event) queueMicrotask(() => this.apply(event))
    return answer
  }

  current(): SpendDoc | null {
    return this.doc
  }

  onApplied(listener: (event: RecordedEvent) => void): void {
    this.listeners.push(listener)
  }

  stop(): void {}

  private apply(event: RecordedEvent): void {
    this.doc = { spentMicros: this.doc?.spentMicros ?? 0, reservedMicros: (this.doc?.reservedMicros ?? 0) + RESERVATION_MICROS }
    for (const listener of this.listeners) listener(event)
  }
}

function taskCreated(accountId: string, taskId: string): RecordedEvent {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  return {
    id: randomUUID(),
    type: 'TaskCreated',
    version: 1,
    occurredAt: new Date().toISOString(),
    accountId,
    aggregateId: taskId,
    data: {},
    metadata,
    seq: 1,
    subject: `mats.task.${accountId}.${taskId}.TaskCreated`,
  }
}

t.test('given a budget for one task reserved by a first task, when the view applies that task while a second check is between turns, then the second is refused', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const account = await anAccount(infra, { monthlyBudgetUsd: 0.01 })
  const view = new InterleavingSpendView()
  const budgets = new Budgets({ view, spendId, events: infra.events, log: testLog() })
  const now = new Date()
  const first = randomUUID()
  await budgets.reserve(account.id, first, now, RESERVATION_MICROS)

  view.applyAfterNextAnswer(taskCreated(account.id, first))
  const second = await budgets.reserve(account.id, randomUUID(), now, RESERVATION_MICROS).catch((err: unknown) => err)

  t.type(second, BudgetExhaustedError, 'the first reservation is counted once, in the view, after its grant is dropped')
  t.same(await budgets.monthToDate(account.id, now), { budgetMicros: RESERVATION_MICROS, spentMicros: 0, reservedMicros: RESERVATION_MICROS })
})

/** A spend view that counts how often it is asked to reach the log's head, and the fences it was asked for. */
class CountingSpendView extends InterleavingSpendView {
  gets = 0
  readonly fences: number[] = []

  override async get(_id?: string, fence = 0): Promise<{ doc: SpendDoc | null; caughtUp: boolean }> {
    this.gets++
    this.fences.push(fence)
    return super.get()
  }
}

t.test('given a budget for two tasks, when three reservations are made together, then the account is read once and the third is refused', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const account = await anAccount(infra, { monthlyBudgetUsd: 0.02 })
  const view = new CountingSpendView()
  const budgets = new Budgets({ view, spendId, events: infra.events, log: testLog() })
  const together = budgets.together()
  const now = new Date()

  const outcomes = await Promise.allSettled([1, 2, 3].map(() => together.reserve(account.id, randomUUID(), now, RESERVATION_MICROS)))

  t.same(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'fulfilled', 'rejected'],
  )
  t.type(outcomes[2]?.status === 'rejected' ? outcomes[2].reason : null, BudgetExhaustedError)
  t.equal(view.gets, 1, 'one fence of the spend view for the three')
  t.same(await budgets.monthToDate(account.id, now), { budgetMicros: 2 * RESERVATION_MICROS, spentMicros: 0, reservedMicros: 2 * RESERVATION_MICROS })
})

t.test('given reservations made together for two accounts, when a task is stored between the first and the second, then both are checked as of one fence, the first one read', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const [first, second] = [await anAccount(infra, { monthlyBudgetUsd: 1 }), await anAccount(infra, { monthlyBudgetUsd: 1 })]
  const view = new CountingSpendView()
  const budgets = new Budgets({ view, spendId, events: infra.events, log: testLog() })
  const together = budgets.together()
  const now = new Date()
  await together.reserve(first.id, randomUUID(), now, RESERVATION_MICROS)

  const drafts: TaskEvent[] = [{ type: 'TaskCreated', data: taskCreatedData(randomUUID(), 'Plan the launch posts', 0) }]
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  await infra.events.append(Task, { accountId: first.id, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now })
  await together.reserve(second.id, randomUUID(), now, RESERVATION_MICROS)
  await budgets.together().reserve(second.id, randomUUID(), now, RESERVATION_MICROS)

  const [shared, again, apart] = view.fences
  t.equal(again, shared, "the second account's check waits for the fence read for the first, not for the task stored since")
  t.ok(apart !== undefined && shared !== undefined && apart > shared, 'reservations not made together read the head anew')
})
