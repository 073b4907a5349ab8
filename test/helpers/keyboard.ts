import type { Locator, Page } from 'playwright-core'

/** Enough Tab presses to cross the busiest screen (the Tasks screen with a full page of rows). */
const MOST_TABS = 90

const isFocused = (target: Locator) => target.evaluate((el: { ownerDocument: { activeElement: unknown } }) => el === el.ownerDocument.activeElement)

/** Presses Tab (Shift+Tab when `back`) until `target` has the focus; throws if it never does. Keyboard only: no click, no focus(). */
export async function tabTo(page: Page, target: Locator, options: { back?: boolean } = {}): Promise<number> {
  await target.waitFor({ state: 'attached' })
  for (let presses = 0; presses <= MOST_TABS; presses++) {
    if (await isFocused(target)) return presses
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab')
  }
  throw new Error(`${MOST_TABS} presses of Tab never reached ${target.toString()}`)
}

/** Whether the focused element shows where the focus is: an outline of at least 2 px (the console's :focus-visible rule). */
export async function focusIsVisible(page: Page): Promise<string | true> {
  const ring = await page.evaluate<{ style: string; width: number; tag: string }>(
    '(() => { const s = getComputedStyle(document.activeElement); return { style: s.outlineStyle, width: parseFloat(s.outlineWidth), tag: document.activeElement.outerHTML.slice(0, 80) } })()',
  )
  return (ring.style !== 'none' && ring.width >= 2) || `no visible focus on ${ring.tag}: outline ${ring.style} ${ring.width}px`
}

/** The focused element's tag, accessible-ish name and whether it is inside an open dialog. */
export function focused(page: Page): Promise<{ inDialog: boolean; text: string }> {
  return page.evaluate(
    '(() => { const el = document.activeElement; return { inDialog: !!el.closest("dialog[open]"), text: (el.getAttribute("aria-label") || el.textContent || el.id || el.tagName).trim() } })()',
  )
}
