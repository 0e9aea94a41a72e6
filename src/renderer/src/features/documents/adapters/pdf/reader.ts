import { createStore, type Store } from '../../../../ui/store'
import { confineEditor, modeOfTool, toolOfMode, type EditorUiManager } from './annotation-editor'
import { currentFindMatch, readerHasSelection, selectElements } from './find-match'
import { toOutline } from './outline-tree'
import { createViewerComponents, documentParams, markPageDrawn } from './pdfjs-setup'
import { loadPdfjs, type Pdfjs, type PdfjsLib, type PdfjsViewer } from './pdfjs'
import {
  FIND_STATES,
  HIGHLIGHT_COLORS,
  isViewState,
  MAX_PDF_BYTES,
  type FindState,
  type HighlightColorName,
  type ReaderOptions,
  type ReaderState,
  type ReaderViewState,
  type Tool,
} from './reader-state'
import { copySelection } from './selection-fragments'
import { clampAspect, ThumbnailRenderer } from './thumbnails'
import { bindReaderZoom } from './zoom-keys'

type PDFDocumentProxy = PdfjsLib.PDFDocumentProxy
type PDFDocumentLoadingTask = PdfjsLib.PDFDocumentLoadingTask
type PDFViewer = PdfjsViewer.PDFViewer
type EventBus = PdfjsViewer.EventBus
type PDFLinkService = PdfjsViewer.PDFLinkService
type PDFFindController = PdfjsViewer.PDFFindController

/**
 * One PDF in the reader: pdf.js's viewer components (PDFViewer, PDFLinkService, PDFFindController
 * and the annotation editor layer) around one loaded document, with the reader's state in a store
 * that the toolbar and sidebar render. The viewer is built once; exporting annotations never
 * rebuilds it, so pdf.js's undo stack lives as long as the reader.
 */
export class PdfReader {
  readonly store: Store<ReaderState>
  /** The scroll container pdf.js lays pages into (absolutely positioned inside the stage). */
  readonly container: HTMLDivElement
  private readonly viewerElement: HTMLDivElement
  private readonly original: Uint8Array
  private readonly abort = new AbortController()
  private pdfjs: Pdfjs | null = null
  private task: PDFDocumentLoadingTask | null = null
  private passwordCallback: ((password: string) => void) | null = null
  private eventBus: EventBus | null = null
  private viewer: PDFViewer | null = null
  private linkService: PDFLinkService | null = null
  private findController: PDFFindController | null = null
  private uiManager: EditorUiManager | null = null
  /** The reader's whole frame (toolbar, sidebar, pages): where its editing keys and clipboard act. */
  private frame: HTMLElement | null = null
  /** Whether the person's last pointer press or focus move was inside the frame. */
  private lastInside = false
  document: PDFDocumentProxy | null = null
  private attached: Promise<void>
  private resolveAttached!: () => void
  private destroyed = false
  private seenHash = ''
  private exportedHash = ''
  private checkScheduled = false
  private lastLocation: { top: number; left: number } | null = null
  private thumbnailRenderer: ThumbnailRenderer | null = null
  private exported: Uint8Array | null = null

  constructor(private readonly options: ReaderOptions) {
    this.original = options.bytes
    const restored = isViewState(options.viewState) ? options.viewState : null
    this.store = createStore<ReaderState>({
      phase: { kind: 'loading' },
      pageCount: 0,
      page: restored?.page ?? 1,
      scale: 1,
      scaleValue: restored?.scaleValue ?? (options.compact ? 'page-fit' : 'page-width'),
      sidebarOpen: restored?.sidebarOpen ?? false,
      sidebarView: restored?.sidebarView ?? 'thumbnails',
      outline: null,
      find: { open: false, query: '', highlightAll: true, current: 0, total: 0, status: 'idle' },
      tool: 'none',
      highlightColor: 'yellow',
      canUndo: false,
      canRedo: false,
      keepLineBreaks: false,
      brokenPages: [],
      editable: !options.readOnly,
      pageAspect: 1.294,
    })
    this.container = document.createElement('div')
    this.container.className = 'pdf-scroll'
    this.container.tabIndex = 0
    this.viewerElement = document.createElement('div')
    this.viewerElement.className = 'pdfViewer'
    this.container.append(this.viewerElement)
    this.attached = new Promise((resolve) => (this.resolveAttached = resolve))
    this.container.addEventListener('copy', (event) => copySelection(event, this.container, this.store.get()), {
      capture: true,
      signal: this.abort.signal,
    })
    // Where the person last pressed or moved the focus: a key on the page's body belongs to the
    // reader only if that was the reader (clicking the chat's text also leaves the focus on body).
    for (const type of ['pointerdown', 'focusin']) {
      document.addEventListener(
        type,
        (event) => {
          const frame = this.frame ?? this.container
          this.lastInside = event.target instanceof Node && frame.contains(event.target)
        },
        { capture: true, signal: this.abort.signal },
      )
    }
    for (const type of ['pointerup', 'keyup', 'focusout', 'change']) {
      this.container.addEventListener(type, () => this.scheduleCheck(), { signal: this.abort.signal })
    }
    bindReaderZoom({
      container: this.container,
      frame: () => this.frame ?? this.container,
      viewer: () => this.viewer,
      scaleValue: () => this.store.get().scaleValue,
      initialFit: options.compact ? 'page-fit' : 'page-width',
      signal: this.abort.signal,
    })
    void this.open()
  }

  private set(patch: Partial<ReaderState>) {
    this.store.set((state) => ({ ...state, ...patch }))
  }

  /** Called once the stage element is in the document (the viewer needs real sizes). */
  attach(stage: HTMLElement) {
    if (this.container.parentElement !== stage) stage.append(this.container)
    this.frame = stage.closest<HTMLElement>('.pdf-reader') ?? stage
    this.resolveAttached()
  }

  private async open() {
    if (this.original.length > MAX_PDF_BYTES) {
      this.fail('too-large', String(this.original.length))
      return
    }
    let pdfjs: Pdfjs
    try {
      pdfjs = await loadPdfjs()
    } catch (error) {
      this.fail('failed', `pdf.js could not be loaded: ${String(error)}`)
      return
    }
    if (this.destroyed) return
    this.pdfjs = pdfjs
    const { lib } = pdfjs
    const task = lib.getDocument(documentParams(pdfjs, this.original))
    this.task = task
    task.onPassword = (update: (password: string) => void, reason: number) => {
      this.passwordCallback = update
      this.set({ phase: { kind: 'password', incorrect: reason === lib.PasswordResponses.INCORRECT_PASSWORD } })
    }
    let pdf: PDFDocumentProxy
    try {
      const failure = pdfjs.workerFailure()
      if (failure) throw new Error(failure)
      pdf = await task.promise
    } catch (error) {
      if (this.destroyed) return
      const name = (error as { name?: string }).name
      if (this.store.get().phase.kind === 'failed') return
      this.fail(name === 'InvalidPDFException' ? 'corrupt' : 'failed', (error as Error).message ?? String(error))
      return
    }
    if (this.destroyed) {
      void task.destroy()
      return
    }
    this.document = pdf
    this.passwordCallback = null
    await this.attached
    if (this.destroyed) return
    this.buildViewer(pdfjs, pdf)
    this.set({ phase: { kind: 'ready' }, pageCount: pdf.numPages })
    void pdf.getPage(1).then((page) => {
      const viewport = page.getViewport({ scale: 1 })
      if (!this.destroyed) this.set({ pageAspect: clampAspect(viewport.height / viewport.width) })
    })
    void pdf.getOutline().then(
      (outline) => {
        if (!this.destroyed) this.set({ outline: toOutline(outline ?? []) })
      },
      () => this.set({ outline: [] }),
    )
  }

  private fail(reason: 'corrupt' | 'too-large' | 'locked' | 'failed', message: string) {
    this.set({ phase: { kind: 'failed', reason, message } })
  }

  submitPassword(password: string) {
    const callback = this.passwordCallback
    if (!callback) return
    this.set({ phase: { kind: 'loading' } })
    callback(password)
  }

  cancelPassword() {
    this.passwordCallback = null
    this.fail('locked', '')
    void this.task?.destroy()
  }

  private buildViewer(pdfjs: Pdfjs, pdf: PDFDocumentProxy) {
    const { lib } = pdfjs
    const signal = this.abort.signal
    const { eventBus, linkService, findController, viewer } = createViewerComponents(pdfjs, {
      container: this.container,
      viewerElement: this.viewerElement,
      editable: !this.options.readOnly,
      signal,
    })
    this.eventBus = eventBus
    this.viewer = viewer
    this.linkService = linkService
    this.findController = findController

    const on = (name: string, listener: (event: never) => void) => eventBus.on(name, listener, { signal })
    on('pagesinit', () => this.restoreView())
    on('pagechanging', (event: { pageNumber: number }) => this.set({ page: event.pageNumber }))
    on('scalechanging', (event: { scale: number; presetValue?: string }) =>
      this.set({ scale: event.scale, scaleValue: event.presetValue ?? String(event.scale) }),
    )
    on('updateviewarea', (event: { location: { top: number; left: number } }) => {
      this.lastLocation = { top: event.location.top, left: event.location.left }
    })
    on('pagerendered', (event: { pageNumber: number; error?: unknown; source?: { div?: HTMLElement } }) => {
      const div = event.source?.div
      if (event.error) {
        if (div) div.dataset.broken = 'true'
        const broken = this.store.get().brokenPages
        if (!broken.includes(event.pageNumber)) this.set({ brokenPages: [...broken, event.pageNumber] })
      } else if (div) {
        markPageDrawn(div)
      }
    })
    on('updatefindmatchescount', (event: { matchesCount: { current: number; total: number } }) =>
      this.setFind({ current: event.matchesCount.current, total: event.matchesCount.total }),
    )
    on(
      'updatefindcontrolstate',
      (event: { state: number; previous?: boolean; matchesCount: { current: number; total: number } }) => {
        const status = FIND_STATES[event.state] ?? 'idle'
        this.setFind({ status, current: event.matchesCount.current, total: event.matchesCount.total })
      },
    )
    // pdf.js asks its host to change the editing mode (to highlight a selection, to edit an
    // existing annotation on double click); the full viewer's app does it, so the reader does too.
    const switchMode = (event: { mode: number; editId?: string; isFromKeyboard?: boolean }) => {
      if (this.options.readOnly) return
      viewer.annotationEditorMode = {
        mode: event.mode,
        editId: event.editId ?? null,
        isFromKeyboard: event.isFromKeyboard ?? false,
      } as PDFViewer['annotationEditorMode']
    }
    on('showannotationeditorui', switchMode)
    on('switchannotationeditormode', switchMode)
    on('annotationeditoruimanager', (event: { uiManager: EditorUiManager }) => {
      this.uiManager = event.uiManager
      confineEditor(event.uiManager, {
        owns: (target) => this.owns(target),
        tools: [lib.AnnotationEditorType.HIGHLIGHT, lib.AnnotationEditorType.FREETEXT],
      })
    })
    on('annotationeditormodechanged', (event: { mode: number }) => {
      this.set({ tool: toolOfMode(event.mode, lib.AnnotationEditorType) })
      this.scheduleCheck()
    })
    on('editingstateschanged', (event: { details: { hasSomethingToUndo: boolean; hasSomethingToRedo: boolean } }) => {
      this.set({ canUndo: event.details.hasSomethingToUndo, canRedo: event.details.hasSomethingToRedo })
      this.scheduleCheck()
    })
    ;(pdf.annotationStorage as { onSetModified: (() => void) | null }).onSetModified = () => this.scheduleCheck()

    viewer.setDocument(pdf)
    linkService.setDocument(pdf, null)
  }

  private restoreView() {
    this.showAt(this.options.viewState)
  }

  /**
   * Hidden in a kept tab: the drawn pages go (a canvas is megabytes, and several papers may be
   * open), as pdf.js itself drops pages that leave its buffer; the annotations and their undo
   * stack live in the editor manager, not in the canvases. `showAt` draws the visible pages again.
   */
  releasePages() {
    const viewer = this.viewer
    if (!viewer) return
    for (let index = 0; index < viewer.pagesCount; index++) {
      const view = viewer.getPageView(index) as { renderingState?: number; destroy?: () => void } | undefined
      if (view && view.renderingState !== 0) view.destroy?.()
    }
  }

  /** Zoom and place as `viewState()` described them (a re-mount, or back from a hidden tab). */
  showAt(viewState: unknown) {
    const viewer = this.viewer
    if (!viewer) return
    const state = this.store.get()
    viewer.currentScaleValue = state.scaleValue
    const restored = isViewState(viewState) ? viewState : null
    if (restored && restored.page > 1 && restored.page <= viewer.pagesCount) {
      viewer.scrollPageIntoView({
        pageNumber: restored.page,
        destArray: restored.top !== null ? [null, { name: 'XYZ' }, restored.left ?? 0, restored.top, null] : undefined,
        ignoreDestinationZoom: true,
      } as Parameters<PDFViewer['scrollPageIntoView']>[0])
    }
    viewer.update()
  }

  // --- navigation and zoom -------------------------------------------------------------------

  goToPage(page: number) {
    const viewer = this.viewer
    if (!viewer || !Number.isInteger(page) || page < 1 || page > viewer.pagesCount) return false
    viewer.currentPageNumber = page
    return true
  }

  nextPage() {
    this.viewer?.nextPage()
  }

  previousPage() {
    this.viewer?.previousPage()
  }

  setZoom(value: string) {
    if (this.viewer) this.viewer.currentScaleValue = value
  }

  zoomIn() {
    this.viewer?.increaseScale()
  }

  zoomOut() {
    this.viewer?.decreaseScale()
  }

  goToDestination(dest: string | unknown[]) {
    void this.linkService?.goToDestination(dest as string)
  }

  // --- sidebar ---------------------------------------------------------------------------------

  toggleSidebar() {
    this.set({ sidebarOpen: !this.store.get().sidebarOpen })
  }

  showSidebarView(view: 'thumbnails' | 'outline') {
    this.set({ sidebarOpen: true, sidebarView: view })
  }

  /** Thumbnails drawn so far stay with the reader (closing the sidebar does not redraw them). */
  get thumbnails(): ThumbnailRenderer | null {
    if (!this.thumbnailRenderer && this.document && !this.destroyed) {
      this.thumbnailRenderer = new ThumbnailRenderer(this.document)
    }
    return this.thumbnailRenderer
  }

  // --- find ------------------------------------------------------------------------------------

  private setFind(patch: Partial<FindState>) {
    this.store.set((state) => ({ ...state, find: { ...state.find, ...patch } }))
  }

  openFind() {
    this.setFind({ open: true })
  }

  closeFind() {
    this.setFind({ open: false, status: 'idle', current: 0, total: 0 })
    this.eventBus?.dispatch('findbarclose', { source: this })
  }

  find(query: string, type: '' | 'again' | 'highlightallchange' = '', previous = false) {
    const find = this.store.get().find
    this.setFind({ query, status: query === '' ? 'idle' : find.status })
    this.eventBus?.dispatch('find', {
      source: this,
      type,
      query,
      caseSensitive: false,
      entireWord: false,
      highlightAll: find.highlightAll,
      findPrevious: previous,
      matchDiacritics: false,
    })
  }

  findNext(previous = false) {
    const { query } = this.store.get().find
    if (query !== '') this.find(query, 'again', previous)
  }

  setHighlightAll(highlightAll: boolean) {
    this.setFind({ highlightAll })
    const { query } = this.store.get().find
    this.find(query, 'highlightallchange')
  }

  setKeepLineBreaks(keepLineBreaks: boolean) {
    this.set({ keepLineBreaks })
  }

  // --- annotations -----------------------------------------------------------------------------

  setTool(tool: Tool, options: { fromKeyboard?: boolean } = {}) {
    const viewer = this.viewer
    if (!viewer || this.options.readOnly || this.store.get().phase.kind !== 'ready') return
    const types = this.pdfjs?.lib.AnnotationEditorType
    const mode = types ? modeOfTool(tool, types) : 0
    viewer.annotationEditorMode = { mode, isFromKeyboard: options.fromKeyboard ?? false }
  }

  /**
   * The Highlight button: highlights the text selected in the reader (by mouse or keyboard), else
   * the current find match, else switches the highlight tool on or off.
   */
  highlight(options: { fromKeyboard?: boolean } = {}) {
    const eventBus = this.eventBus
    if (this.options.readOnly || !eventBus) return
    if (!readerHasSelection(this.container) && this.currentMatch().length === 0) {
      this.setTool(this.store.get().tool === 'highlight' ? 'none' : 'highlight', options)
      return
    }
    const apply = () => {
      if (!readerHasSelection(this.container)) selectElements(this.currentMatch())
      eventBus.dispatch('editingaction', { source: this, name: 'highlightSelection' })
    }
    // pdf.js turns a selection into a highlight from no tool or the highlight tool, not from another.
    if (this.store.get().tool === 'freetext') {
      eventBus.on('annotationeditormodechanged', apply, { once: true, signal: this.abort.signal })
      this.setTool('none')
    } else {
      apply()
    }
  }

  /** The Free text button: the tool on or off; from the keyboard it also places a note to type in. */
  freeText(options: { fromKeyboard?: boolean } = {}) {
    const viewer = this.viewer
    const lib = this.pdfjs?.lib
    if (!viewer || !lib || !this.eventBus) return
    if (this.store.get().tool === 'freetext' && !options.fromKeyboard) {
      this.setTool('none')
      return
    }
    this.setTool('freetext', options)
    if (options.fromKeyboard) {
      const eventBus = this.eventBus
      const create = () =>
        eventBus.dispatch('switchannotationeditorparams', {
          source: this,
          type: lib.AnnotationEditorParamsType.CREATE,
          value: { isFromKeyboard: true },
        })
      if (this.store.get().tool === 'freetext') create()
      else eventBus.on('annotationeditormodechanged', create, { once: true, signal: this.abort.signal })
    }
  }

  setHighlightColor(name: HighlightColorName) {
    const lib = this.pdfjs?.lib
    const color = HIGHLIGHT_COLORS.find((c) => c.name === name)
    if (!lib || !color || !this.eventBus) return
    this.set({ highlightColor: name })
    // pdf.js recolours the selected highlights, or else sets the colour of the next ones.
    this.eventBus.dispatch('switchannotationeditorparams', {
      source: this,
      type: lib.AnnotationEditorParamsType.HIGHLIGHT_COLOR,
      value: color.value,
    })
  }

  undo() {
    this.eventBus?.dispatch('editingaction', { source: this, name: 'undo' })
    this.scheduleCheck()
  }

  redo() {
    this.eventBus?.dispatch('editingaction', { source: this, name: 'redo' })
    this.scheduleCheck()
  }

  private currentMatch(): Element[] {
    return currentFindMatch(this.container, this.store.get().find.open)
  }

  // --- changes and export ----------------------------------------------------------------------

  private currentHash(): string {
    return this.document?.annotationStorage.serializable.hash ?? ''
  }

  /** Coalesces the many signals of one edit into one look at the annotation storage. */
  private scheduleCheck() {
    if (this.checkScheduled || this.destroyed || this.options.readOnly) return
    this.checkScheduled = true
    queueMicrotask(() => {
      this.checkScheduled = false
      if (this.destroyed || !this.document) return
      const hash = this.currentHash()
      if (hash !== this.seenHash) {
        this.seenHash = hash
        this.options.onChange()
      }
    })
  }

  /** Annotations differ from what was last exported (or opened). */
  get dirty(): boolean {
    return this.document !== null && this.currentHash() !== this.exportedHash
  }

  /**
   * The document with its annotations as PDF bytes (pdf.js's `saveDocument`, an incremental
   * update of the original). With no annotation edits left (all undone), the original bytes,
   * exactly. The live viewer, its editors and its undo stack are untouched.
   */
  async exportBytes(options: { final?: boolean } = {}): Promise<Uint8Array> {
    const pdf = this.document
    if (!pdf || this.options.readOnly) return this.original
    // Closing: a note still being typed is committed first, so its text is not lost.
    if (options.final) this.uiManager?.endCurrentEditing?.()
    const storage = pdf.annotationStorage
    const hash = storage.serializable.hash
    const bytes = hash === '' ? this.original.slice() : await pdf.saveDocument()
    this.exportedHash = hash
    this.exported = bytes
    this.seenHash = hash === this.currentHash() ? hash : this.seenHash
    return bytes
  }

  get originalBytes(): Uint8Array {
    return this.original
  }

  /** What the reader shows as a file: its last export, else the bytes it opened. */
  get shownBytes(): Uint8Array {
    return this.exported ?? this.original
  }

  viewState(): ReaderViewState {
    const state = this.store.get()
    return {
      page: state.page,
      scaleValue: state.scaleValue,
      top: this.lastLocation?.top ?? null,
      left: this.lastLocation?.left ?? null,
      sidebarOpen: state.sidebarOpen,
      sidebarView: state.sidebarView,
    }
  }

  /**
   * Whether a key or clipboard event is this reader's: it started inside the reader's frame, or on
   * the page's body while the reader is on screen and was the last thing pressed or focused (after
   * a note closes, the focus falls on body).
   */
  private owns(target: EventTarget | null): boolean {
    const frame = this.frame ?? this.container
    if (!frame.isConnected) return false
    if (target === document.body || target === document.documentElement || target === document) return this.lastInside
    return target instanceof Node && frame.contains(target)
  }

  destroy() {
    if (this.destroyed) return
    this.destroyed = true
    this.abort.abort()
    this.thumbnailRenderer?.dispose()
    // pdf.js's viewer asks for every page once the first is drawn, and each answer is written into
    // its page list: destroying the document while those requests travel makes each one fail
    // loudly ("Unable to get page N … Transport destroyed"), and emptying the viewer first
    // (`setDocument(null)`) makes each answer read a page that is gone — an uncaught "reading
    // 'pdfPage'" (seen when a reader is closed or switched away from while it opens). So the
    // viewer is emptied and the task destroyed once those requests have settled (or after a few
    // seconds at most); the reader's frame leaves the page at once.
    const pagesLoaded = this.viewer?.pagesPromise ?? Promise.resolve()
    const { viewer, linkService, task } = this
    void Promise.race([pagesLoaded, new Promise((resolve) => setTimeout(resolve, 5000))]).finally(() => {
      viewer?.setDocument(null as unknown as PDFDocumentProxy)
      linkService?.setDocument(null, null)
      void task?.destroy()
    })
    this.container.remove()
  }
}
