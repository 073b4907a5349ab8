/**
 * A signal that aborts when any of `sources` does, with that source's reason. Unlike
 * AbortSignal.any, whose link to its sources is weak on Node 20 (a composite nobody else
 * references can be collected, and a later abort is then lost: seen under load as delegated
 * runs that never heard their supervisor's cancellation), each source holds the link
 * strongly until `dispose`.
 */
export function linkedSignal(sources: readonly AbortSignal[]): { readonly signal: AbortSignal; abort(reason: unknown): void; dispose(): void } {
  const controller = new AbortController()
  const unlinks: (() => void)[] = []
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason)
      break
    }
    const onAbort = (): void => controller.abort(source.reason)
    source.addEventListener('abort', onAbort, { once: true })
    unlinks.push(() => source.removeEventListener('abort', onAbort))
  }
  return {
    signal: controller.signal,
    /** Aborts the linked signal itself, as a source would. */
    abort: (reason) => controller.abort(reason),
    dispose: () => {
      for (const unlink of unlinks) unlink()
    },
  }
}
