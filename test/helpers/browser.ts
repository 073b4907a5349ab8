import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import type { Test } from 'tap'

/**
 * Debian's chromium (scripts/ensure-chromium.sh installs it; CHROMIUM names another) driven by
 * playwright-core 1.64.1, whose protocol matches Chromium 156. No browser is downloaded.
 */
function chromiumPath(): string {
  const given = process.env.CHROMIUM ?? 'chromium'
  if (given.includes('/')) return given
  return execFileSync('sh', ['-c', `command -v ${given}`], { encoding: 'utf8' }).trim()
}

// Flags for a machine with no outside network (../shared notes: each one stops a call home).
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage']

/** Debian's chromium, headless; the caller closes it (a bench, which has no tap teardown). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: FLAGS, timeout: 120_000 })
}

export async function launchBrowser(t: Test): Promise<Browser> {
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  return browser
}

/** A fresh browser profile (its own cookies), at a phone's width when asked. */
export async function aContext(browser: Browser, t: Test, options: { width?: number } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.width ? 844 : 900 } })
  // Generous waits: 7 engineers share 2 cores.
  context.setDefaultTimeout(30_000)
  t.teardown(() => context.close())
  return context
}

/** Signs in through the form, by keyboard only. */
export async function signInWithKey(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`)
  await page.getByLabel('API key').focus()
  await page.keyboard.type(key)
  await page.keyboard.press('Enter')
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
}

/** WCAG 2.1 A and AA rules of axe-core: the violations on the page as it is now, one line each. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Screenshots for docs/console.md: written to docs/console/ when UPDATE_CONSOLE_SCREENSHOTS=1
 * (so that a routine `npm test` leaves the checkout clean), else to a temporary directory.
 */
export function screenshotPath(name: string): string {
  const dir = process.env.UPDATE_CONSOLE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'console') : join(process.env.TMPDIR ?? '/tmp', 'mats-console-screenshots')
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true })
  return join(dir, `${name}.png`)
}
