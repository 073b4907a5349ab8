import type { ComponentChildren, TargetedEvent } from 'preact'
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
 * focus returned, the owner told. The browser's `close` event comes later (Chromium sends it
 * with the next animation frame): acted on only while its <dialog> is still on the page, since
 * the owner may have opened another one by then (Enter on the opener right after Escape), which
 * a late `close` of the old one would shut. Whether it is on the page is asked of the element,
 * not of an effect's cleanup: Preact 11 runs an unmounted component's `useEffect` cleanups
 * after the next frame, later than that late `close`.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<HTMLElement | null>(null)
  useEffect(() => {
    const dialog = ref.current
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
    if (dialog && !dialog.open) dialog.showModal()
    return () => {
      // Preact 11 runs this after the element has left the page (closing it then only sends a `close`
      // that `closed` ignores); kept so that a dialog unmounted while still in the page never stays modal.
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
  const closed = (event: TargetedEvent<HTMLDialogElement>) => {
    if (event.currentTarget.isConnected) props.onClose()
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
