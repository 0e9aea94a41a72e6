// Stages pdf.js (pdfjs-dist's legacy build) into the renderer output at /document-assets/pdfjs/:
// the main module, its worker and the viewer components byte for byte as published, the viewer
// stylesheet scoped to the reader, and the local cMaps, standard fonts, wasm decoders and ICC
// profiles pdf.js would otherwise look for elsewhere. `manifest.json` records the version, the
// build type and the digest of every staged file (spec 09 "PDF runtime compatibility").
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Plugin } from 'vite'

export const PDFJS_ASSET_DIR = 'document-assets/pdfjs'
/** The class of the reader's root element: the only place upstream viewer CSS applies. */
export const PDF_READER_SCOPE = '.pdf-reader'

export interface StagedFile {
  /** Path under the asset folder. */
  readonly path: string
  /** Path inside the pdfjs-dist package it came from. */
  readonly source: string
  readonly bytes: Buffer
  /** Whether the bytes are the package's own, unchanged. */
  readonly verbatim: boolean
}

/** Files of these folders are staged whole, except scripting (no PDF JavaScript runs here). */
const FOLDERS = ['cmaps', 'standard_fonts', 'wasm', 'iccs', 'legacy/web/images'] as const
const EXCLUDED = /^quickjs-eval\./

/**
 * Variables pdf.js's editors read with `getComputedStyle(document.documentElement)` (sizes of an
 * editor's outline and a note's padding). They alone stay on the document root, under names no app
 * style uses; without them a new free-text note gets a NaN position.
 */
export const ROOT_VARIABLES_READ_BY_PDFJS = ['--outline-width', '--freetext-padding'] as const

/**
 * Scopes the upstream viewer stylesheet to the reader: every rule goes inside
 * `@scope (.pdf-reader)` and its `:root` variables become the scope root's, so a generic pdf.js
 * class (`.dialog`, `.messageBar`, `.toggle-button`) never restyles the app around it.
 */
export function scopeViewerCss(css: string, scope = PDF_READER_SCOPE): string {
  if (/@(import|font-face|keyframes|property|layer)\b/.test(css)) {
    throw new Error('pdf_viewer.css gained an at-rule that cannot live inside @scope; update scopeViewerCss')
  }
  const rootValues = ROOT_VARIABLES_READ_BY_PDFJS.map((name) => {
    const value = new RegExp(`${name}:\\s*([^;]+);`).exec(css)?.[1]
    if (value === undefined) throw new Error(`pdf_viewer.css no longer defines ${name}; update scopeViewerCss`)
    return `${name}:${value};`
  })
  const body = css.replace(/:root(?![\w-])/g, ':scope')
  return (
    `/* pdf.js viewer stylesheet, scoped to ${scope} by scripts/pdfjs-assets.ts */\n` +
    `:root{${rootValues.join('')}}\n@scope (${scope}) {\n${body}\n}\n`
  )
}

export function readPdfjsVersion(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version
}

export function collectPdfjsAssets(packageDir: string): StagedFile[] {
  const file = (path: string, source: string): StagedFile => ({
    path,
    source,
    bytes: readFileSync(join(packageDir, source)),
    verbatim: true,
  })
  const files: StagedFile[] = [
    file('pdf.min.mjs', 'legacy/build/pdf.min.mjs'),
    file('pdf.worker.min.mjs', 'legacy/build/pdf.worker.min.mjs'),
    file('pdf_viewer.mjs', 'legacy/web/pdf_viewer.mjs'),
    file('LICENSE', 'LICENSE'),
    {
      path: 'pdf_viewer.css',
      source: 'legacy/web/pdf_viewer.css',
      bytes: Buffer.from(scopeViewerCss(readFileSync(join(packageDir, 'legacy/web/pdf_viewer.css'), 'utf8'))),
      verbatim: false,
    },
  ]
  for (const folder of FOLDERS) {
    // The stylesheet refers to its icons as `images/…`, next to itself.
    const target = folder === 'legacy/web/images' ? 'images' : folder
    for (const name of readdirSync(join(packageDir, folder)).sort()) {
      if (!EXCLUDED.test(name)) files.push(file(`${target}/${name}`, `${folder}/${name}`))
    }
  }
  return files
}

export function pdfjsManifest(packageDir: string, files: readonly StagedFile[]) {
  return {
    package: 'pdfjs-dist',
    version: readPdfjsVersion(packageDir),
    build: 'legacy',
    module: 'pdf.min.mjs',
    worker: 'pdf.worker.min.mjs',
    viewer: 'pdf_viewer.mjs',
    files: files.map((f) => ({
      path: f.path,
      source: f.source,
      size: f.bytes.length,
      sha256: createHash('sha256').update(f.bytes).digest('hex'),
      verbatim: f.verbatim,
    })),
  }
}

const MIME: Record<string, string> = {
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
}

/** The Vite plugin: emits the assets into the build and serves them in `electron-vite dev`. */
export function pdfjsAssets(options: { packageDir: string }): Plugin {
  let staged: Map<string, Buffer> | null = null
  const stage = () => {
    if (staged) return staged
    const files = collectPdfjsAssets(options.packageDir)
    const manifest = pdfjsManifest(options.packageDir, files)
    staged = new Map(files.map((f) => [f.path, f.bytes]))
    staged.set('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`))
    return staged
  }
  return {
    name: 'retrace-pdfjs-assets',
    generateBundle() {
      for (const [path, source] of stage()) {
        this.emitFile({ type: 'asset', fileName: `${PDFJS_ASSET_DIR}/${path}`, source })
      }
    },
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const prefix = `/${PDFJS_ASSET_DIR}/`
        const url = request.url?.split('?')[0] ?? ''
        if (!url.startsWith(prefix)) return next()
        const path = decodeURIComponent(url.slice(prefix.length))
        const bytes = stage().get(path)
        if (!bytes) return next()
        const ext = path.slice(path.lastIndexOf('.'))
        response.setHeader('Content-Type', MIME[ext] ?? 'application/octet-stream')
        response.end(bytes)
      })
    },
  }
}
