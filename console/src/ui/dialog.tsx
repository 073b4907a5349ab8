import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href]'

/** Focus back on the control that opened a dialog, if it is still on the page. */
function returnFocus(opener: HTMLElement | null): void {
  if (opener?.isConnected) opener.focus()
}

/**
 * A modal dialog (the native <dialog> shown with showModal: role dialog, the page behind inert,
 * Escape closes it). Named by its heading. Tab and Shift+Tab cycle through its own controls
 * (the native dialog would let focus leave for the browser's), and closing it returns focus
 * to the control that opened it. Escape is handled in the key's own turn (`cancel`): closed,
 * focus returned, the owner told. The browser's `close` event comes in a later task: acted on
 * only while this dialog is still on the page, since the owner may have opened another one by
 * then (Enter on the opener right after Escape, on a loaded machine), which a late `close` of
 * the old one used to shut.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<HTMLElement | null>(null)
  const mounted = useRef(true)
  useEffect(() => {
    const dialog = ref.current
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
    if (dialog && !dialog.open) dialog.showModal()
    return () => {
      mounted.current = false
      dialog?.close()
      returnFocus(opener.current)
    }
  }, [])
  const cancel = (event: Event) => {
    event.preventDefault()
    ref.current?.close()
    returnFocus(opener.current)
    props.onClose()
  }
  const closed = () => {
    if (mounted.current) props.onClose()
  }
  const keepFocusInside = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || !ref.current) return
    const controls = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)]
    const [first, last] = [controls[0], controls.at(-1)]
    const at = document.activeElement
    if (event.shiftKey && at === first) last?.focus()
    else if (!event.shiftKey && at === last) first?.focus()
    else return
    event.preventDefault()
  }
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onCancel={cancel} onClose={closed} onKeyDown={keepFocusInside}>
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  )
}
