import { useEffect, useRef, useState } from 'react'
import { useI18n, type Locale } from '../../../../i18n'
import { Alert } from '../../../../ui/Alert'
import type { MountedDocument } from '../types'
import type { OfficeServices } from './services'
import { useElapsed } from './use-elapsed'

type PagesState =
  | { kind: 'converting' }
  | { kind: 'shown' }
  | { kind: 'unavailable'; message: string }
  | { kind: 'failed'; message: string }

/**
 * The page-faithful preview: LibreOffice converts the saved file to PDF (engine side: fresh
 * profile, no network, cached by revision) and the PDF reader shows it read-only, with its pages,
 * find and zoom. It shows the file as saved; each visit asks again (a cached revision answers at
 * once), so it follows the editor's published edits.
 */
export function PagesView(props: { services: OfficeServices; path: string; dark: boolean; locale: Locale }) {
  const { t } = useI18n()
  const [state, setState] = useState<PagesState>({ kind: 'converting' })
  const [attempt, setAttempt] = useState(0)
  const slot = useRef<HTMLDivElement>(null)
  const elapsed = useElapsed(state.kind === 'converting')
  const { services, path, dark, locale } = props
  const mounted = useRef<MountedDocument | null>(null)

  useEffect(() => {
    const controller = new AbortController()
    let reader: MountedDocument | null = null
    void (async () => {
      const [outcome, pdf] = await Promise.all([
        services.preview(controller.signal),
        import('../pdf').then((m) => {
          m.warmUp()
          return m.pdfAdapter
        }),
      ])
      if (controller.signal.aborted) return
      if (outcome.kind === 'error') {
        setState({ kind: 'failed', message: outcome.message })
        return
      }
      const preview = outcome.result
      if (preview.kind === 'unavailable') {
        setState({ kind: 'unavailable', message: t(`office.preview.${preview.reason}`) })
        return
      }
      const element = slot.current
      if (!element) return
      reader = await pdf.mount(element, {
        content: { kind: 'bytes', bytes: preview.bytes, mime: 'application/pdf' },
        revision: preview.revision,
        readOnly: true,
        path,
        size: 'full',
        dark,
        locale,
      })
      if (controller.signal.aborted) {
        reader.destroy()
        return
      }
      mounted.current = reader
      setState({ kind: 'shown' })
    })()
    return () => {
      controller.abort()
      reader?.destroy()
      mounted.current = null
    }
    // The reader follows language and scheme through its own setters below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [services, path, attempt])

  useEffect(() => mounted.current?.setDark(dark), [dark])
  useEffect(() => mounted.current?.setLocale?.(locale), [locale])

  return (
    <div className="office-pages" data-testid="office-pages">
      {state.kind === 'converting' && (
        <p className="viewer-note" role="status">
          {elapsed >= 1 ? t('office.previewingFor', { seconds: elapsed }) : t('office.previewing')}
        </p>
      )}
      {(state.kind === 'unavailable' || state.kind === 'failed') && (
        <Alert as="div" className="viewer-note viewer-error">
          <p>{state.message}</p>
          <button
            type="button"
            onClick={() => {
              setState({ kind: 'converting' })
              setAttempt((n) => n + 1)
            }}
          >
            {t('office.retry')}
          </button>
        </Alert>
      )}
      <div ref={slot} className="office-pages-reader" hidden={state.kind !== 'shown'} />
    </div>
  )
}
