import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href]'

/**
 * A modal dialog (the native <dialog> shown with showModal: role dialog, the page behind inert,
 * Escape closes it). Named by its heading. Tab and Shift+Tab cycle through its own controls
 * (the native dialog would let focus leave for the browser's), and closing it returns focus
 * to the control that opened it.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    if (dialog && !dialog.open) dialog.showModal()
    return () => {
      dialog?.close()
      if (opener?.isConnected) opener.focus()
    }
  }, [])
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
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={props.onClose} onKeyDown={keepFocusInside}>
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  )
}
