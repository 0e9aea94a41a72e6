import { createRoot } from 'react-dom/client'
import { I18nContext, translator, type Locale } from '../../../../i18n'
import { rememberScroll } from '../scroll-offsets'
import { createEmitter, sameBytes, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'
import { loadPdfjs } from './pdfjs'
import { PdfReader } from './reader'
import { isViewState } from './reader-state'
import { ReaderView } from './Reader'
import './reader.css'

/** Starts loading pdf.js (module, viewer, worker) while the file's bytes are still on their way. */
export function warmUp(): void {
  void loadPdfjs().catch(() => undefined)
}

/**
 * The PDF reader (spec 09): pdf.js's viewer in a reader frame — continuous pages, sidebar with
 * thumbnails and outline, find, zoom, clean copy — and, on a project file, highlight and
 * free-text annotations exported into the PDF itself. Review's before/after (`compact`) and
 * History previews mount the same reader read-only.
 */
export const pdfAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const root = document.createElement('div')
    root.className = `pdf-reader pdf-reader-${options.size}`
    root.dataset.testid = options.size === 'full' ? 'pdf-reader' : 'pdf-reader-compact'
    container.append(root)
    let locale: Locale = options.locale ?? 'en'
    let revision = options.revision
    const open = (bytes: Uint8Array, viewState: unknown) =>
      new PdfReader({
        bytes,
        readOnly: options.readOnly,
        compact: options.size === 'compact',
        viewState,
        onChange: () => events.emit('changed', { revision }),
      })
    let generation = 0
    let reader = open(options.content.kind === 'bytes' ? options.content.bytes : new Uint8Array(), options.viewState)
    const react = createRoot(root)
    const render = () =>
      react.render(
        <I18nContext.Provider value={{ locale, t: translator(locale), setLocale: () => {} }}>
          <ReaderView key={generation} reader={reader} path={options.path} compact={options.size === 'compact'} />
        </I18nContext.Provider>,
      )
    render()
    let hidden: { viewState: unknown; restoreScroll: () => void } | null = null
    return {
      on: events.on,
      /**
       * Other bytes on disk (someone else changed the file while it had no unsaved edits): a new
       * document at the same place. The bytes this reader itself exported never come back here.
       */
      update(content: DocumentContent, nextRevision: string) {
        if (content.kind !== 'bytes' || sameBytes(content.bytes, reader.shownBytes)) {
          revision = nextRevision
          return
        }
        const viewState = reader.viewState()
        reader.destroy()
        revision = nextRevision
        reader = open(content.bytes, viewState)
        generation++
        render()
      },
      viewState: () => reader.viewState(),
      // A page asked for from outside (Review): a hidden reader goes there when shown again.
      restoreViewState(viewState) {
        if (!isViewState(viewState)) return
        if (hidden) hidden = { ...hidden, viewState }
        else reader.goToPage(viewState.page)
      },
      hide() {
        hidden = { viewState: reader.viewState(), restoreScroll: rememberScroll(root) }
        reader.releasePages()
        return true
      },
      show() {
        if (!hidden) return
        // The sidebar's offsets come back as they were; the pages by their place in the document,
        // which stays right if the pane changed width meanwhile (a fit-width zoom re-applies).
        hidden.restoreScroll()
        reader.showAt(hidden.viewState)
        hidden = null
      },
      setDark(dark) {
        root.dataset.theme = dark ? 'dark' : 'light'
      },
      setLocale(next) {
        locale = next
        render()
      },
      async export(exportOptions) {
        const bytes = await reader.exportBytes(exportOptions)
        return new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' })
      },
      destroy() {
        react.unmount()
        reader.destroy()
        root.remove()
      },
    }
  },
}
