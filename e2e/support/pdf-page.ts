import { execFileSync } from 'node:child_process'
import type { BrowserContext, Page } from 'playwright-core'

/**
 * The annotations of a PDF on disk as an independent decoder sees them: qpdf (Debian package
 * `qpdf`, installed by .ci/run) parses the file and its incremental updates and dumps every
 * object; pdf.js is not involved.
 */
export function annotationsOnDisk(
  file: string,
  password?: string,
): Array<{ subtype: string; contents: string | null }> {
  let out: string
  const args = [...(password !== undefined ? [`--password=${password}`] : []), '--json=2', '--json-key=qpdf', file]
  try {
    out = execFileSync('qpdf', args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    // qpdf exits 3 on warnings and still prints the JSON.
    const stdout = (error as { stdout?: string }).stdout
    if (typeof stdout !== 'string' || stdout === '') throw error
    out = stdout
  }
  const json = JSON.parse(out) as { qpdf: [unknown, Record<string, { value?: unknown }>] }
  const found: Array<{ subtype: string; contents: string | null }> = []
  for (const object of Object.values(json.qpdf[1])) {
    const value = object.value as Record<string, unknown> | undefined
    if (!value || typeof value !== 'object' || typeof value['/Subtype'] !== 'string') continue
    const subtype = value['/Subtype'].slice(1)
    if (value['/Type'] !== '/Annot' && !['Highlight', 'FreeText', 'Link'].includes(subtype)) continue
    const contents = value['/Contents']
    found.push({ subtype, contents: typeof contents === 'string' ? contents.replace(/^u:/, '') : null })
  }
  return found
}

/** Dark pixels on each drawn page canvas of the reader (a blank page has none). */
export async function inkPerPage(page: Page): Promise<number[]> {
  return page.locator('.pdf-scroll .page[data-rendered="true"] .canvasWrapper canvas').evaluateAll((canvases) =>
    canvases.map((element) => {
      const canvas = element as HTMLCanvasElement
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data
      let dark = 0
      if (data) for (let i = 0; i < data.length; i += 16) if ((data[i] ?? 255) < 128 && (data[i + 3] ?? 0) > 0) dark++
      return dark
    }),
  )
}

/**
 * The runtime of older Electron builds: `Uint8Array.prototype.toHex` and `Math.sumPrecise` do not
 * exist, in the page and in pdf.js's worker (whose script is fetched through this route and
 * prefixed with the same deletions). The worker records what it found for the test to check.
 */
export async function withoutNewerApis(target: Page | BrowserContext): Promise<void> {
  await target.addInitScript(() => {
    delete (Uint8Array.prototype as { toHex?: unknown }).toHex
    delete (Math as { sumPrecise?: unknown }).sumPrecise
  })
  await target.route('**/document-assets/pdfjs/pdf.worker.min.mjs', async (route) => {
    const response = await route.fetch()
    const body =
      'delete Uint8Array.prototype.toHex; delete Math.sumPrecise;\n' +
      'globalThis.__retraceMissing = [typeof Uint8Array.prototype.toHex, typeof Math.sumPrecise];\n' +
      (await response.text())
    await route.fulfill({ response, body })
  })
}

/** What the pdf.js worker saw before its own code ran (see `withoutNewerApis`). */
export async function workerSawMissingApis(page: Page): Promise<unknown> {
  for (const worker of page.workers()) {
    const seen = await worker.evaluate(() => (globalThis as { __retraceMissing?: unknown }).__retraceMissing)
    if (seen !== undefined) return seen
  }
  return null
}

/**
 * Selects text in the reader's text layer from the first occurrence of `from` to the end of the
 * first later occurrence of `to` (both searched on the given 1-based page).
 */
export async function selectText(page: Page, pageNumber: number, from: string, to: string): Promise<void> {
  await page.evaluate(
    ({ pageNumber, from, to }) => {
      const layer = document.querySelector(`.pdf-scroll .page[data-page-number="${pageNumber}"] .textLayer`)
      if (!layer) throw new Error(`no text layer on page ${pageNumber}`)
      const walker = document.createTreeWalker(layer, NodeFilter.SHOW_TEXT)
      const nodes: Array<{ node: Text; at: number }> = []
      let text = ''
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        nodes.push({ node: node as Text, at: text.length })
        text += (node as Text).data
      }
      // Words are often separate spans: search the page's text as one string, then map back.
      const begin = text.indexOf(from)
      const finish = begin < 0 ? -1 : text.indexOf(to, begin) + to.length
      if (begin < 0 || finish < to.length) throw new Error(`text not found: ${from} … ${to}`)
      const locate = (offset: number, end: boolean) => {
        const hit = nodes.findLast((n) => (end ? n.at < offset : n.at <= offset))
        if (!hit) throw new Error('offset outside the text layer')
        return { node: hit.node, offset: offset - hit.at }
      }
      const start = locate(begin, false)
      const stop = locate(finish, true)
      const range = document.createRange()
      range.setStart(start.node, start.offset)
      range.setEnd(stop.node, stop.offset)
      const selection = getSelection()
      selection?.removeAllRanges()
      selection?.addRange(range)
    },
    { pageNumber, from, to },
  )
}

/** Copies the selection with the keyboard and returns what reached the clipboard. */
export async function copySelection(page: Page): Promise<string> {
  await page.keyboard.press('Control+c')
  return page.evaluate(() => navigator.clipboard.readText())
}
