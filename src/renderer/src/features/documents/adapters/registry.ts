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
 * Office documents by name: the engine's sniffing names a ZIP container (DOCX/XLSX/PPTX/ODF) by its
 * extension and the compound-file formats (DOC/XLS/PPT, encrypted OOXML) carry no magic it knows,
 * so the name decides here; `office.inspect` then reads the content (a renamed `.doc` is a DOC).
 */
export const OFFICE_EXTENSION =
  /\.(docx|docm|dotx|pptx|pptm|ppsx|potx|xlsx|xlsm|xltx|doc|dot|ppt|pps|xls|xlt|odt|ods|odp|rtf)$/i

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
    id: 'office',
    needs: 'bytes',
    // Its built-in editors (DOCX, slide text, cells) export whole files through the byte autosave;
    // a document it only previews never reports a change, so nothing is ever written for it.
    edits: 'bytes',
    canHandle: (type) => type.kind === 'binary' && OFFICE_EXTENSION.test(type.path),
    load: () => import('./office').then((m) => m.officeAdapter),
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
