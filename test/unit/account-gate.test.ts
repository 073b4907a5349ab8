import t from 'tap'
import { AccountGate } from '../../src/api/account-gate.js'

/** A call that runs until released: what the gate lets in, and in which order. */
function held(gate: AccountGate, accountId: string, name: string, started: string[]) {
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const done = gate.run(accountId, async () => {
    started.push(name)
    await released
    return name
  })
  return { release, done }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

t.test('given a gate of 2, when 4 calls of one account come, then 2 run and the others wait their turn in order; another account goes straight on', async (t) => {
  const gate = new AccountGate(2)
  const started: string[] = []
  const a = ['a1', 'a2', 'a3', 'a4'].map((name) => held(gate, 'A', name, started))
  const b = held(gate, 'B', 'b1', started)
  await settle()
  t.same(started, ['a1', 'a2', 'b1'], 'two of A and B run; a3 and a4 wait')

  a[1]!.release()
  t.equal(await a[1]!.done, 'a2')
  await settle()
  t.same(started, ['a1', 'a2', 'b1', 'a3'], 'a finished call lets the first waiting one in')

  a[0]!.release()
  await settle()
  t.same(started.at(-1), 'a4', 'then the next')
  for (const call of [...a, b]) call.release()
  t.same(await Promise.all([...a, b].map((call) => call.done)), ['a1', 'a2', 'a3', 'a4', 'b1'])
})

t.test('given a call that fails, then its slot is given back and the next runs', async (t) => {
  const gate = new AccountGate(1)
  const failing = gate.run('A', async () => {
    throw new Error('the store said no')
  })
  const next = gate.run('A', async () => 'ran')
  await t.rejects(failing, { message: 'the store said no' })
  t.equal(await next, 'ran')
  t.equal(await gate.run('A', async () => 'again'), 'again', 'and the gate is open afterwards')
})
