/** A cookie-authenticated write without the session's CSRF token or from another origin: 403 `csrf_failed`. */
export class CsrfError extends Error {
  override readonly name = 'CsrfError'
}
