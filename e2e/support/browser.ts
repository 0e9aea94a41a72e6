import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM_PATH = process.env.RETRACE_CHROMIUM ?? '/usr/bin/chromium'

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  })
}

export interface PageWatch {
  readonly consoleErrors: string[]
  readonly cspViolations: () => Promise<Array<{ directive: string; blockedURI: string }>>
}

/** Records console errors, uncaught page errors and CSP violations from the first script on. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`))
  await page.addInitScript(() => {
    const violations: Array<{ directive: string; blockedURI: string }> = []
    Object.defineProperty(window, '__cspViolations', { value: violations })
    document.addEventListener('securitypolicyviolation', (event) => {
      violations.push({ directive: event.effectiveDirective, blockedURI: event.blockedURI })
    })
  })
  return {
    consoleErrors,
    cspViolations: () =>
      page.evaluate(
        () =>
          (window as unknown as { __cspViolations: Array<{ directive: string; blockedURI: string }> }).__cspViolations,
      ),
  }
}
