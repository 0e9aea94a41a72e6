import { createRoot } from 'react-dom/client'
import { I18nContext, translator, type Locale } from '../../../../i18n'
import { rememberScroll } from '../scroll-offsets'
import { createEmitter, sameBytes, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'
import { OfficeView, type EngineSlot } from './OfficeView'
import { OnlyOfficeHost } from './onlyoffice-host'
import { OfficeSession } from './session'
import './office.css'

/**
 * Office documents (spec 10): DOCX, PPTX, XLSX, their legacy and ODF relatives. The adapter holds
 * the document session (the bytes the built-in editors patch) and the ONLYOFFICE frame's slot;
 * the view picks the engine. Edits leave only through `export()` and the host's byte autosave.
 */
export const officeAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const root = document.createElement('div')
    root.className = `office-view office-view-${options.size}`
    root.dataset.testid = options.size === 'full' ? 'office-view' : 'office-view-compact'
    const reactRoot = document.createElement('div')
    reactRoot.className = 'office-react'
    // The ONLYOFFICE frame's home for the whole session: React never owns or moves it.
    const frameSlot = document.createElement('div')
    frameSlot.className = 'office-engine-slot'
    frameSlot.hidden = true
    root.append(reactRoot, frameSlot)
    container.append(root)

    let locale: Locale = options.locale ?? 'en'
    let dark = options.dark
    const bytes = options.content.kind === 'bytes' ? options.content.bytes : new Uint8Array()
    const session = new OfficeSession(bytes, options.revision, () =>
      events.emit('changed', { revision: session.revision }),
    )
    let host: OnlyOfficeHost | null = null
    const engine: EngineSlot = {
      slot: frameSlot,
      get host() {
        return host
      },
      ensure(office, format, readOnly, bytes) {
        if (host) return host
        host = new OnlyOfficeHost(frameSlot, {
          origin: office.origin ?? '',
          entry: office.entry ?? '',
          format,
          readOnly,
          locale,
          title: translator(locale)('office.engine.frame'),
          onChanged: () => session.changed(),
          onState: (state) => frameSlot.dispatchEvent(new CustomEvent('office-engine-state', { detail: state })),
        })
        void host.start(bytes)
        return host
      },
    }
    const react = createRoot(reactRoot)
    let generation = 0
    const render = () =>
      react.render(
        <I18nContext.Provider value={{ locale, t: translator(locale), setLocale: () => {} }}>
          <OfficeView
            key={generation}
            session={session}
            services={options.office}
            path={options.path}
            readOnly={options.readOnly || options.size === 'compact'}
            dark={dark}
            locale={locale}
            engine={engine}
          />
        </I18nContext.Provider>,
      )
    render()
    let restoreScroll: (() => void) | null = null
    return {
      on: events.on,
      /** Other bytes on disk while nothing is unsaved: the views re-read them in place. */
      update(content: DocumentContent, revision: string) {
        if (content.kind !== 'bytes' || sameBytes(content.bytes, session.bytes)) {
          session.revision = revision
          return
        }
        session.replace(content.bytes, revision)
        // A live editor (DOCX, ONLYOFFICE) loaded the old bytes: it starts again on the new ones.
        host?.destroy()
        host = null
        generation++
        render()
      },
      viewState: () => undefined,
      hide() {
        // An ONLYOFFICE frame would reload when moved and lose its session: close instead.
        if (host) return false
        restoreScroll = rememberScroll(root)
        return true
      },
      show() {
        restoreScroll?.()
        restoreScroll = null
      },
      setDark(next) {
        dark = next
        root.dataset.theme = next ? 'dark' : 'light'
        render()
      },
      setLocale(next) {
        locale = next
        render()
      },
      async export(exportOptions) {
        const out = await session.export(exportOptions?.final ?? false)
        return new Blob([out as Uint8Array<ArrayBuffer>], { type: mimeFor(options.path) })
      },
      destroy() {
        host?.destroy()
        react.unmount()
        root.remove()
      },
    }
  },
}

function mimeFor(path: string): string {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
  switch (extension) {
    case 'docx':
      return 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
    case 'pptx':
      return 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
    case 'xlsx':
      return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
    default:
      return 'application/octet-stream'
  }
}
