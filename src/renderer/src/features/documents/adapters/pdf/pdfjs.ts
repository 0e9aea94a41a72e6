import type * as PdfjsLib from 'pdfjs-dist/legacy/build/pdf.mjs'
import type * as PdfjsViewer from 'pdfjs-dist/legacy/web/pdf_viewer.mjs'

export type { PdfjsLib, PdfjsViewer }

export interface Pdfjs {
  readonly lib: typeof PdfjsLib
  readonly viewer: typeof PdfjsViewer
  /** Where the staged cMaps, fonts, wasm and ICC profiles are (same origin, spec 09). */
  readonly assets: URL
  /** Set once the shared worker failed to start: documents then fail instead of waiting. */
  workerFailure(): string | null
}

/**
 * The staged pdf.js (scripts/pdfjs-assets.ts): the legacy build's module, worker and viewer
 * components exactly as published, served by the app at /document-assets/pdfjs/. They are loaded
 * from there rather than bundled so the manifest's digests describe the bytes that actually run.
 */
export const PDFJS_ASSETS = (): URL => new URL('document-assets/pdfjs/', document.baseURI)

let loading: Promise<Pdfjs> | null = null
let worker: Worker | null = null

export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= load().catch((error: unknown) => {
    loading = null
    throw error
  })
  return loading
}

async function load(): Promise<Pdfjs> {
  const assets = PDFJS_ASSETS()
  const href = (name: string) => new URL(name, assets).href
  // Everything starts at once: the worker (the biggest script) boots while the library and the
  // viewer load. The viewer module reads `globalThis.pdfjsLib` when it is evaluated, so it is
  // imported after the library; fetching it (and the stylesheet) meanwhile costs nothing.
  let failure: string | null = null
  // One module worker for every document (the legacy worker, from the same origin, so it runs
  // under the app's CSP): documents open without paying for a new worker each time.
  worker ??= new Worker(href('pdf.worker.min.mjs'), { type: 'module', name: 'pdf.js' })
  worker.addEventListener('error', (event) => {
    failure = event.message || 'The PDF worker could not start.'
  })
  preload(href('pdf_viewer.mjs'), 'modulepreload')
  const stylesheet = addStylesheet(href('pdf_viewer.css'))
  const lib = (await import(/* @vite-ignore */ href('pdf.min.mjs'))) as typeof PdfjsLib
  const viewer = (await import(/* @vite-ignore */ href('pdf_viewer.mjs'))) as typeof PdfjsViewer
  lib.GlobalWorkerOptions.workerPort ??= worker
  await stylesheet
  return { lib, viewer, assets, workerFailure: () => failure }
}

function preload(href: string, rel: 'modulepreload' | 'preload') {
  if (document.head.querySelector(`link[href="${CSS.escape(href)}"]`)) return
  const link = document.createElement('link')
  link.rel = rel
  link.href = href
  document.head.append(link)
}

function addStylesheet(href: string): Promise<void> {
  const existing = document.head.querySelector<HTMLLinkElement>(`link[rel="stylesheet"][href="${CSS.escape(href)}"]`)
  if (existing) return Promise.resolve()
  return new Promise((resolve) => {
    const link = document.createElement('link')
    link.rel = 'stylesheet'
    link.href = href
    // A missing stylesheet leaves the reader unstyled but usable; it never blocks reading.
    link.onload = link.onerror = () => resolve()
    document.head.append(link)
  })
}
