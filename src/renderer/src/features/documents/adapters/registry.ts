import type { DocumentAdapterEntry, SniffedType } from './types'

/** Bitmaps the editor can write back in their own format (spec 09 "Images"). */
const EDITABLE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp'])

/** Shown, never edited: converting them would change the format or lose frames or depth. */
const PREVIEW_TYPES = new Set(['image/gif', 'image/bmp', 'image/x-icon', 'image/avif', 'image/svg+xml'])

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
    id: 'bitmap',
    needs: 'bytes',
    edits: 'bytes',
    keep: true,
    // Animated, 16-bit and over-limit files are previewed by the same adapter, which says why.
    canHandle: (type) => EDITABLE_TYPES.has(type.mime),
    load: () => import('./image/editor').then((m) => m.bitmapAdapter),
  },
  {
    id: 'psd',
    needs: 'bytes',
    canHandle: (type) => type.mime === 'image/vnd.adobe.photoshop',
    load: () => import('./psd').then((m) => m.psdAdapter),
  },
  {
    id: 'tiff',
    needs: 'bytes',
    canHandle: (type) => type.mime === 'image/tiff',
    load: () => import('./tiff').then((m) => m.tiffAdapter),
  },
  {
    id: 'image',
    needs: 'bytes',
    // SVG is valid UTF-8, so the engine reports it as text: it is still shown only as an <img>
    // (never inline DOM, its scripts never run; spec 11), with its source one click away.
    canHandle: (type) => PREVIEW_TYPES.has(type.mime) || /\.svg$/i.test(type.path),
    load: () => import('./image').then((m) => m.imageAdapter),
  },
  {
    id: 'media',
    needs: 'bytes',
    canHandle: (type) => /^(audio|video)\//.test(type.mime),
    load: () => import('./media').then((m) => m.mediaAdapter),
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
