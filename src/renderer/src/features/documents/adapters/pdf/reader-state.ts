/** Spec 09: the reader refuses inputs over 64 MiB before handing them to pdf.js. */
export const MAX_PDF_BYTES = 64 * 1024 * 1024
/** Canvas limits: 16 M pixels (64 MiB of RGBA) per page canvas; bigger zooms are drawn by pdf.js's detail view. */
export const MAX_CANVAS_PIXELS = 2 ** 24
export const MAX_CANVAS_DIM = 16_384

export const ZOOM_PRESETS = ['page-width', 'page-fit', 'page-actual'] as const
export type ZoomPreset = (typeof ZOOM_PRESETS)[number]
export const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4] as const

/** Highlight colours offered (pdf.js's own names and values, so its editor toolbar agrees). */
export const HIGHLIGHT_COLORS = [
  { name: 'yellow', value: '#FFFF98' },
  { name: 'green', value: '#53FFBC' },
  { name: 'blue', value: '#80EBFF' },
  { name: 'pink', value: '#FFCBE6' },
] as const
export type HighlightColorName = (typeof HIGHLIGHT_COLORS)[number]['name']

export type ReaderPhase =
  | { readonly kind: 'loading' }
  | { readonly kind: 'password'; readonly incorrect: boolean }
  | { readonly kind: 'ready' }
  | {
      readonly kind: 'failed'
      readonly reason: 'corrupt' | 'too-large' | 'locked' | 'failed'
      readonly message: string
    }

export type Tool = 'none' | 'highlight' | 'freetext'

export interface OutlineNode {
  readonly id: string
  readonly title: string
  readonly dest: string | unknown[] | null
  readonly children: readonly OutlineNode[]
}

export interface FindState {
  readonly open: boolean
  readonly query: string
  readonly highlightAll: boolean
  readonly current: number
  readonly total: number
  readonly status: 'idle' | 'pending' | 'found' | 'not-found' | 'wrapped'
}

export interface ReaderState {
  readonly phase: ReaderPhase
  readonly pageCount: number
  readonly page: number
  readonly scale: number
  /** A preset name or the numeric scale as text (pdf.js's `currentScaleValue`). */
  readonly scaleValue: string
  readonly sidebarOpen: boolean
  readonly sidebarView: 'thumbnails' | 'outline'
  readonly outline: readonly OutlineNode[] | null
  readonly find: FindState
  readonly tool: Tool
  readonly highlightColor: HighlightColorName
  readonly canUndo: boolean
  readonly canRedo: boolean
  readonly keepLineBreaks: boolean
  /** Pages pdf.js could not draw (canvas limits, broken content). */
  readonly brokenPages: readonly number[]
  readonly editable: boolean
  /** Height ÷ width of page 1: the placeholder shape of thumbnails not drawn yet. */
  readonly pageAspect: number
}

export interface ReaderViewState {
  readonly page: number
  readonly scaleValue: string
  readonly top: number | null
  readonly left: number | null
  readonly sidebarOpen: boolean
  readonly sidebarView: 'thumbnails' | 'outline'
}

export interface ReaderOptions {
  readonly bytes: Uint8Array
  readonly readOnly: boolean
  readonly compact: boolean
  readonly viewState?: unknown
  /** Announces an edit of the annotations (the adapter turns it into `changed`). */
  readonly onChange: () => void
}

/** pdf.js's find states by their number (`FindState` in pdf_find_controller). */
export const FIND_STATES = ['found', 'not-found', 'wrapped', 'pending'] as const

/**
 * A view state that opens a reader at a page (Review's "Show in reader" of an annotation, a
 * changed page side by side). `pageRequest`: a one-time request the tab applies also to a reader it
 * kept from before, whose own place would otherwise win.
 */
export function pageViewState(page: number, compact = false): ReaderViewState & { readonly pageRequest: true } {
  return {
    page,
    scaleValue: compact ? 'page-fit' : 'page-width',
    top: null,
    left: null,
    sidebarOpen: false,
    sidebarView: 'thumbnails',
    pageRequest: true,
  }
}

/** A view state saved by `PdfReader.viewState()` (anything else — a stale or foreign value — is ignored). */
export function isViewState(value: unknown): value is ReaderViewState {
  return typeof value === 'object' && value !== null && typeof (value as ReaderViewState).page === 'number'
}
