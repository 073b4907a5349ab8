/** How a step ended when it was given a limited time: done, failed (with its error), or still running when the time was up. */
export type Settled = { readonly outcome: 'done' } | { readonly outcome: 'failed'; readonly error: unknown } | { readonly outcome: 'late' }

/** Waits for `step` at most `ms`; a late step goes on in the background, unwatched. */
export async function settleWithin(step: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'late' }), ms)
  })
  try {
    return await Promise.race([
      step.then(
        (): Settled => ({ outcome: 'done' }),
        (error: unknown): Settled => ({ outcome: 'failed', error }),
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}
