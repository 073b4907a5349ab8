import type { FastifyReply, FastifyRequest } from 'fastify'

/** Whether the client of a held request is still there; `release` once the request is answered. */
export interface Connected {
  /** Aborts when the client goes away before its answer (its connection closed). */
  readonly gone: AbortSignal
  release(): void
}

/**
 * Watches the connection of a request held open (a waitSeconds wait): the response's 'close'
 * before it finished means the client went away, and whatever the request holds for it (a place
 * in the live events, a timer) can go at once rather than when the wait would have ended.
 */
export function whileConnected(request: FastifyRequest, reply: FastifyReply): Connected {
  const gone = new AbortController()
  const onClose = (): void => {
    if (!reply.raw.writableFinished) gone.abort()
  }
  reply.raw.once('close', onClose)
  // Gone already (while its body was read or its task stored): 'close' was emitted before it was listened to.
  if (request.raw.socket?.destroyed) gone.abort()
  return { gone: gone.signal, release: () => reply.raw.off('close', onClose) }
}
