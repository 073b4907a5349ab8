/** This month's spend needs GET /v1/usage, which the API does not offer yet: the screen says so instead of guessing. */
export function Usage() {
  return (
    <>
      <h1>Usage</h1>
      <p>The spend chart needs the API's usage operation (GET /v1/usage), which this server does not offer yet. Each task's tokens and cost are on its page.</p>
    </>
  )
}
