import type { DocumentAdapterEntry, SniffedType } from './types'

const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/x-icon',
  'image/avif',
])

/**
 * Every format the window shows, one entry per adapter, first match wins. A later issue adds an
 * adapter by adding an entry here and a folder next to this file (loaded as its own chunk).
 */
export const ADAPTERS: readonly DocumentAdapterEntry[] = [
  {
    id: 'pdf',
    needs: 'bytes',
    edits: 'bytes',
    canHandle: (type) => type.mime === 'application/pdf',
    load: () =>
      import('./pdf').then((m) => {
        m.warmUp()
        return m.pdfAdapter
      }),
  },
  {
    id: 'image',
    needs: 'bytes',
    // SVG is an image too, but it is shown only as an <img> (never inline DOM; spec 11).
    canHandle: (type) => IMAGE_TYPES.has(type.mime) || type.mime === 'image/svg+xml',
    load: () => import('./image').then((m) => m.imageAdapter),
  },
  {
    id: 'markdown',
    needs: 'text',
    canHandle: (type) => type.kind === 'text' && /\.(md|markdown|mdown|mkd)$/i.test(type.path),
    load: () => import('./markdown').then((m) => m.markdownAdapter),
  },
  {
    id: 'csv',
    needs: 'text',
    canHandle: (type) => type.kind === 'text' && /\.(csv|tsv|tab)$/i.test(type.path),
    load: () => import('./csv').then((m) => m.csvAdapter),
  },
  {
    id: 'text',
    needs: 'text',
    canHandle: (type) => type.kind === 'text',
    load: () => import('./text').then((m) => m.textAdapter),
  },
]

export function resolveAdapter(type: SniffedType): DocumentAdapterEntry | null {
  return ADAPTERS.find((entry) => entry.canHandle(type)) ?? null
}
