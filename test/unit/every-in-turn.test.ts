import t from 'tap'
import { EveryInTurn, type Beats } from '../../src/infra/every-in-turn.js'

/** Beats the test gives by hand, and a step it holds until it lets it end. */
function aRig() {
  let beat: (() => void) | null = null
  const beats: Beats = (fn) => {
    beat = fn
    return () => {
      beat = null
    }
  }
  const rig = {
    steps: 0,
    held: [] as (() => void)[],
    step: () =>
      new Promise<void>((resolve) => {
        rig.steps++
        rig.held.push(resolve)
      }),
    beat: () => beat?.(),
    get beating() {
      return beat !== null
    },
    beats,
  }
  return rig
}

const settle = () => new Promise((r) => setImmediate(r))

/** Started on the rig's beats, its first step ended, a second one begun by a beat and held. */
async function inSecondStep(rig: ReturnType<typeof aRig>): Promise<EveryInTurn> {
  const repeating = new EveryInTurn(rig.step, 1000, rig.beats)
  const started = repeating.start()
  rig.held.shift()?.()
  await started
  rig.beat()
  return repeating
}

t.test('given a step under way, when beats come, then they are skipped, not queued for later', async (t) => {
  const rig = aRig()
  await inSecondStep(rig)
  t.equal(rig.steps, 2, 'a beat with nothing under way starts a step')
  for (let i = 0; i < 5; i++) rig.beat()
  t.equal(rig.steps, 2, 'beats during the step start none')
  rig.held.shift()?.()
  await settle()
  t.equal(rig.steps, 2, 'the step that ended is not followed by the beats missed meanwhile')
  rig.beat()
  t.equal(rig.steps, 3, 'the next beat starts the next step')
})

t.test('given a step that fails, when the next beat comes, then it steps again', async (t) => {
  let calls = 0
  const rig = aRig()
  const repeating = new EveryInTurn(
    async () => {
      calls++
      if (calls === 2) throw new Error('NATS away')
    },
    1000,
    rig.beats,
  )
  await repeating.start()
  rig.beat()
  await settle()
  rig.beat()
  await settle()
  t.equal(calls, 3)
})

t.test('given a step under way, when stopped, then it waits for the step and no beat comes after', async (t) => {
  const rig = aRig()
  const repeating = await inSecondStep(rig)
  let stopped = false
  const stopping = repeating.stop().then(() => {
    stopped = true
  })
  await settle()
  t.equal(stopped, false, 'the stop waits for the step under way')
  t.equal(rig.beating, false, 'the beats have ended')
  rig.held.shift()?.()
  await stopping
  t.equal(rig.steps, 2)
})
