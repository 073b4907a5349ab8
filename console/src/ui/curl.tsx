import { useState } from 'preact/hooks'

/** The same call as a `curl` command with a bearer key, to copy into a terminal or a script. */
export function Curl(props: { method: string; path: string }) {
  const [copied, setCopied] = useState(false)
  const command = `curl -X ${props.method} '${window.location.origin}${props.path}' -H "Authorization: Bearer $MATS_API_KEY"`
  const copy = () => navigator.clipboard?.writeText(command).then(() => setCopied(true))
  return (
    <>
      <h2>The same call with curl</h2>
      <pre class="text">{command}</pre>
      <button type="button" class="secondary" onClick={copy}>
        {copied ? 'Copied' : 'Copy curl command'}
      </button>
    </>
  )
}
