import type { DocumentAdapterEntry, SniffedType } from './types'

/** Bitmaps the editor can write back in their own format (spec 09 "Images"). */
const EDITABLE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp'])

/**
 * Shown, never edited: converting them would change the format or lose frames or depth. An icon
 * is named `image/vnd.microsoft.icon` by its extension (the registered type) or `image/x-icon`.
 */
const PREVIEW_TYPES = new Set([
  'image/gif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'image/avif',
  'image/svg+xml',
])

/**
 * Office documents by name: the engine's sniffing names a ZIP container (DOCX/XLSX/PPTX/ODF) by its
 * extension and the compound-file formats (DOC/XLS/PPT, encrypted OOXML) carry no magic it knows,
 * so the name decides here; `office.inspect` then reads the content (a renamed `.doc` is a DOC).
 */
export const OFFICE_EXTENSION =
  /\.(docx|docm|dotx|pptx|pptm|ppsx|potx|xlsx|xlsm|xltx|doc|dot|ppt|pps|xls|xlt|odt|ods|odp|rtf)$/i

/**
 * Binary document formats known by their name. A file sniffed as text (valid UTF-8: an empty file,
 * a text file given such a name, RTF, which is ASCII) still goes to its format's adapter, which says
 * it is damaged or shows it — never to the text editor, where typing would overwrite a document.
 */
const PDF_NAME = /\.pdf$/i
const BITMAP_NAME = /\.(png|jpe?g|jfif|webp|gif|bmp|ico|avif|tiff?|psd)$/i

/**
 * Every format the window shows, one entry per adapter, first match wins. A later issue adds an
 * adapter by adding an entry here and a folder next to this file (loaded as its own chunk).
 */
export const ADAPTERS: readonly DocumentAdapterEntry[] = [
  {
    id: 'pdf',
    needs: 'bytes',
    edits: 'bytes',
    // A tab switch keeps the reader: its place, zoom, tool and pdf.js's undo stack.
    keep: true,
    canHandle: (type) => type.mime === 'application/pdf' || PDF_NAME.test(type.path),
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
    // Kept across tab switches like the other rich editors (the DOCX editor's undo stack, the
    // slide and sheet in view) — except with an ONLYOFFICE frame, which reloads when moved.
    keep: true,
    // By name for binaries; of the text files only RTF (ASCII by design). A Graphviz `.dot` or an
    // HTML/TSV export named `.xls` is text and stays in the text editor.
    canHandle: (type) => OFFICE_EXTENSION.test(type.path) && (type.kind === 'binary' || /\.rtf$/i.test(type.path)),
    load: () => import('./office').then((m) => m.officeAdapter),
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
    canHandle: (type) =>
      PREVIEW_TYPES.has(type.mime) ||
      /\.svg$/i.test(type.path) ||
      (type.kind === 'text' && BITMAP_NAME.test(type.path)),
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
