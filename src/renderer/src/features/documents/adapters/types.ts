import type { Locale } from '../../../i18n'
import type { OfficeServices } from './office/services'

/**
 * The document adapter contract (spec 09 "One window for every file"). An adapter gets only its
 * document's content and revision — never the disk, the protocol or another file — renders into
 * the container it is given, reports `changed` (the person edited it) and `error`, exports its
 * bytes, and is destroyed when the tab closes.
 */

/** What the engine sniffed: text (valid UTF-8, no NUL) or binary with a MIME type. */
export interface SniffedType {
  readonly kind: 'text' | 'binary'
  readonly mime: string
  readonly path: string
  readonly size: number
}

export type DocumentContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly mime: string }

/** What converting a preview-only file produced: a new file next to the original, or why not. */
export type CopyOutcome =
  { readonly kind: 'created'; readonly path: string } | { readonly kind: 'failed'; readonly message: string }

export interface MountOptions {
  readonly content: DocumentContent
  readonly revision: string
  readonly readOnly: boolean
  /** For labels and language detection; never used to read anything. */
  readonly path: string
  /** `compact` for small previews (Review's before/after), `full` for a tab. */
  readonly size: 'full' | 'compact'
  /** What `viewState()` returned before a re-mount (scroll, selection). */
  readonly viewState?: unknown
  readonly dark: boolean
  /** Opens a project file in a tab (Markdown links); navigation only, never a read. */
  readonly openFile?: (path: string) => void
  /** Translated labels for an adapter's own controls (it has no access to the i18n module). */
  readonly labels?: Readonly<Record<string, string>>
  /** The UI language for an adapter's own controls (English when absent). */
  readonly locale?: Locale
  /**
   * Office documents only: the engine's Office actions bound to this one file (inspect, the
   * LibreOffice preview, conversion into a new file, the engines and their install).
   */
  readonly office?: OfficeServices
  /**
   * "Convert to PNG" and the like, on a project file only: writes `bytes` as a NEW file next to
   * this one (journaled; it never replaces an existing file). The adapter itself still never
   * reads or writes a file.
   */
  readonly createCopy?: (bytes: Uint8Array, extension: string) => Promise<CopyOutcome>
}

export interface AdapterEvents {
  /** The person changed the document (autosave and drafts hook in here; spec 08). */
  changed: { revision: string }
  error: { message: string }
}

export interface MountedDocument {
  on<E extends keyof AdapterEvents>(event: E, listener: (payload: AdapterEvents[E]) => void): () => void
  /** New content for the same document (an outside edit of a clean file), keeping the view. */
  update(content: DocumentContent, revision: string): void
  /** Scroll position and selection, handed back through `MountOptions.viewState` on re-mount. */
  viewState(): unknown
  /** Text views: move to a view state now (what `viewState()` gives), focusing the editor. */
  restoreViewState?(viewState: unknown): void
  setDark(dark: boolean): void
  /** Text adapters: the document's text now (what autosave stores on every change). */
  currentText?(): string
  /** Editable adapters: stop (or resume) accepting input, e.g. while the draft quota is full. */
  setReadOnly?(readOnly: boolean): void
  setLocale?(locale: Locale): void
  /**
   * The document's bytes as they are now, edits included, without disturbing the live view (its
   * undo stack survives). `final`: the view is about to close, so pending input is committed.
   */
  export(options?: { final?: boolean }): Promise<Blob>
  /**
   * A kept instance (`keep` on its entry) is about to leave the page: its element is detached until
   * the tab is shown again. False when that would lose the view's state (an iframe reloads when
   * its element is moved): the host then releases it as if the tab had closed.
   */
  hide?(): boolean
  /** Back on the page after `hide()`: put back what detaching lost (scroll offsets). */
  show?(): void
  destroy(): void
}

export interface DocumentAdapter {
  mount(container: HTMLElement, options: MountOptions): Promise<MountedDocument>
}

export interface DocumentAdapterEntry {
  readonly id: string
  /** Which content the adapter mounts: text for text files, bytes for binaries. */
  readonly needs: 'text' | 'bytes'
  canHandle(type: SniffedType): boolean
  /** The adapter edits the document and exports bytes (published through autosave, spec 08). */
  readonly edits?: 'bytes'
  /**
   * On a project file the instance outlives the tab's view (kept-documents.ts): a tab switch keeps
   * the editor, its native undo stack and its autosave; closing the tab releases it.
   */
  readonly keep?: boolean
  /** A lazy chunk: heavy adapters (Monaco, pdf.js, …) load only when such a file is opened. */
  load(): Promise<DocumentAdapter>
}

/** A tiny event emitter for adapters. */
export function createEmitter() {
  const listeners = new Map<keyof AdapterEvents, Set<(payload: never) => void>>()
  return {
    on<E extends keyof AdapterEvents>(event: E, listener: (payload: AdapterEvents[E]) => void) {
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      set.add(listener as (payload: never) => void)
      return () => set.delete(listener as (payload: never) => void)
    },
    emit<E extends keyof AdapterEvents>(event: E, payload: AdapterEvents[E]) {
      for (const listener of listeners.get(event) ?? []) (listener as (p: AdapterEvents[E]) => void)(payload)
    },
  }
}

/** Whether two byte arrays hold the same bytes (an adapter's own export coming back as "new" content). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}
