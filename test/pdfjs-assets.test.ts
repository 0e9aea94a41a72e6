import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { collectPdfjsAssets, pdfjsManifest, scopeViewerCss } from '../scripts/pdfjs-assets'

const PACKAGE = join(__dirname, '..', 'node_modules', 'pdfjs-dist')

describe('staged pdf.js assets', () => {
  test('the viewer stylesheet is scoped to the reader; only the two variables pdf.js reads stay on the root', () => {
    const css = scopeViewerCss(
      ':root{\n  --outline-width:2px;\n  --freetext-padding:2px;\n  --x:1;\n}\n.dialog{color:red}\n',
    )
    expect(css).toContain(':root{--outline-width:2px;--freetext-padding:2px;}')
    expect(css).toContain('@scope (.pdf-reader) {')
    expect(css).toContain(':scope{')
    const scoped = css.slice(css.indexOf('@scope'))
    expect(scoped).not.toMatch(/:root/)
    expect(scoped).toContain('.dialog{color:red}')
    expect(() => scopeViewerCss('@keyframes spin{}')).toThrow(/at-rule/)
  })

  test('the manifest names the legacy build and the digest of every staged file, module and worker verbatim', () => {
    const files = collectPdfjsAssets(PACKAGE)
    const manifest = pdfjsManifest(PACKAGE, files)
    const version = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version
    expect(manifest).toMatchObject({ package: 'pdfjs-dist', version, build: 'legacy' })
    expect(manifest.version).toBe('6.3.289')
    const worker = manifest.files.find((f) => f.path === 'pdf.worker.min.mjs')
    expect(worker).toMatchObject({ source: 'legacy/build/pdf.worker.min.mjs', verbatim: true })
    expect(manifest.files.find((f) => f.path === 'pdf.min.mjs')?.source).toBe('legacy/build/pdf.min.mjs')
    // Local cMaps, fonts, wasm decoders and ICC profiles; never the scripting engine.
    for (const folder of ['cmaps/', 'standard_fonts/', 'wasm/', 'iccs/', 'images/']) {
      expect(manifest.files.some((f) => f.path.startsWith(folder))).toBe(true)
    }
    expect(manifest.files.some((f) => f.path.includes('quickjs'))).toBe(false)
  })
})
