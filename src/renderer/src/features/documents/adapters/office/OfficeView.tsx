import { lazy, Suspense, useCallback, useEffect, useState } from 'react'
import type { OfficeFormat } from '../../../../../../shared/protocol'
import { formatBytes, useI18n, type Locale, type MessageKey } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { Alert } from '../../../../ui/Alert'
import { OdfThumbnail } from './OdfThumbnail'
import { OnlyOfficePane } from './OnlyOfficePane'
import type { OnlyOfficeHost } from './onlyoffice-host'
import { PackOffer } from './PackOffer'
import { PagesView } from './PagesView'
import { inspectionState, tooLargeDetail, type InspectionState } from './refusal'
import type { OfficeEngine, OfficeServices, OfficeStatus } from './services'
import { conversionTarget, downloadBytes, formatFromPath, isMacroEnabled, type OfficeSession } from './session'
import { SheetView } from './SheetView'
import { SlideView } from './SlideView'
import { useElapsed } from './use-elapsed'

type Mode = 'builtin' | 'pages' | 'onlyoffice'

// The DOCX editor (with ProseMirror, ~0.6 MB compressed) is its own chunk: sheets and slides
// never load it.
const DocxView = lazy(() => import('./DocxView').then((m) => ({ default: m.DocxView })))

/** Where the ONLYOFFICE frame lives: owned by the adapter so it outlives React re-mounts. */
export interface EngineSlot {
  readonly slot: HTMLElement
  readonly host: OnlyOfficeHost | null
  /** The session's one host: created and started on first use, then the same one every time. */
  ensure(engine: OfficeEngine, format: OfficeFormat, readOnly: boolean, bytes: Uint8Array): OnlyOfficeHost
}

type Install =
  { kind: 'idle' } | { kind: 'running'; received: number; total: number } | { kind: 'failed'; message: string }

type Conversion =
  { kind: 'idle' } | { kind: 'running' } | { kind: 'done'; path: string } | { kind: 'failed'; message: string }

const KNOWN_REASONS = new Set(['not-found', 'not-installed', 'no-origin'])
const BUILTIN_EDITS = new Set<OfficeFormat>(['docx', 'pptx', 'xlsx'])

/**
 * One Office document (spec 10): which engines this machine has and what each gives, then the
 * document in the best of them — the built-in editors (DOCX, slide text, cells), LibreOffice's
 * page-faithful preview in the PDF reader, or the ONLYOFFICE bundle once installed — with
 * conversion of legacy formats into a new file and "Open in LibreOffice". Encrypted and damaged
 * files get an explicit state with Download; nothing is uploaded and no macro ever runs.
 */
export function OfficeView(props: {
  session: OfficeSession
  services: OfficeServices | undefined
  path: string
  /** Review/History previews: never editable. */
  readOnly: boolean
  dark: boolean
  locale: Locale
  engine: EngineSlot
}) {
  const { t } = useI18n()
  const { session, services, path, engine } = props
  const [status, setStatus] = useState<OfficeStatus | null>(null)
  const [inspected, setInspected] = useState<InspectionState>({ kind: services ? 'pending' : 'unknown' })
  const [inspectAttempt, setInspectAttempt] = useState(0)
  const [mode, setMode] = useState<Mode | null>(null)
  const [switching, setSwitching] = useState(false)
  const [offerClosed, setOfferClosed] = useState(false)
  const [install, setInstall] = useState<Install>({ kind: 'idle' })
  const [conversion, setConversion] = useState<Conversion>({ kind: 'idle' })
  const [notice, setNotice] = useState<string | null>(null)
  const converting = useElapsed(conversion.kind === 'running')

  const refreshStatus = useCallback(
    async (signal?: AbortSignal) => {
      if (!services) return
      const outcome = await services.status(signal)
      if (outcome.kind === 'ok') setStatus(outcome.result)
      return outcome
    },
    [services],
  )

  useEffect(() => {
    if (!services) return
    const controller = new AbortController()
    void services.status(controller.signal).then((outcome) => {
      if (!controller.signal.aborted && outcome.kind === 'ok') setStatus(outcome.result)
    })
    // Not reset to pending on a new revision: publishing an edit changes it, and the editor stays.
    void services.inspect(controller.signal).then((outcome) => {
      if (controller.signal.aborted) return
      // A later revision is what the open editor itself published: a failed re-inspection of it
      // never tears that editor down (its unexported edits would go with it).
      setInspected((current) =>
        outcome.kind === 'error' && current.kind === 'inspected' ? current : inspectionState(outcome),
      )
    })
    return () => controller.abort()
  }, [services, session.revision, inspectAttempt])

  const inspection = inspected.kind === 'inspected' ? inspected.inspection : null
  const refusal = inspected.kind === 'refused' ? inspected.refusal : null
  const format: OfficeFormat | null = inspection?.format ?? formatFromPath(path)
  const libre = status?.engines.find((e) => e.id === 'libreoffice')
  const only = status?.engines.find((e) => e.id === 'onlyoffice')
  const libreAvailable = libre?.available === true
  // Pages and conversions come from native LibreOffice or, without it, the WebAssembly pack;
  // "Open in LibreOffice" stays native only.
  const pagesAvailable =
    libreAvailable || status?.engines.some((e) => e.id === 'libreoffice-wasm' && e.available) === true
  const onlyAvailable = only?.available === true && only.origin !== undefined && only.entry !== undefined
  // A refused document is in no state an engine may open: every `state === 'ok'` gate stays shut.
  const state = refusal ? 'refused' : (inspection?.state ?? 'ok')
  const losses = inspection?.docx_losses ?? []
  const hasBuiltinEditor = format !== null && BUILTIN_EDITS.has(format)

  // The first engine shown: ONLYOFFICE when installed (it edits everything faithfully), else the
  // built-in editor for DOCX/PPTX/XLSX (editing is what people open them for), else LibreOffice's
  // faithful pages (legacy and ODF files), else the approximate built-in view.
  const chosen: Mode | null =
    mode ??
    (status === null && services
      ? null
      : onlyAvailable && format !== null && only?.edit.includes(format) && !props.readOnly
        ? 'onlyoffice'
        : hasBuiltinEditor
          ? 'builtin'
          : pagesAvailable
            ? 'pages'
            : 'builtin')

  // The ONLYOFFICE frame: created once per document session, shown or hidden, never moved.
  useEffect(() => {
    if (chosen !== 'onlyoffice' || !only || !format || state !== 'ok') {
      // Only hidden: the exporter belongs to whichever editor is shown now (its effect ran first).
      engine.host?.setVisible(false)
      return
    }
    const host = engine.ensure(only, format, props.readOnly, session.bytes)
    // The document changed in another view since this instance opened it: it opens the current
    // bytes, never exports stale ones over them.
    if (host.openedWith !== session.bytes) void host.start(session.bytes)
    host.setVisible(true)
    session.setExporter(async () => host.export())
    return () => {
      host.setVisible(false)
      session.setExporter(null)
    }
  }, [chosen, only, format, state, engine, session, props.readOnly])

  useEffect(() => {
    if (!services || install.kind !== 'running') return
    return services.onInstallProgress((progress) => {
      if (progress.phase === 'done') {
        setInstall({ kind: 'idle' })
        setOfferClosed(true)
        void refreshStatus().then(() => setMode('onlyoffice'))
      } else if (progress.phase === 'failed') {
        setInstall({ kind: 'failed', message: progress.error?.message ?? progress.error?.code ?? '' })
      } else {
        setInstall({ kind: 'running', received: progress.received_bytes, total: progress.total_bytes })
      }
    })
  }, [services, install.kind, refreshStatus])

  const startInstall = async () => {
    if (!services) return
    setInstall({ kind: 'running', received: 0, total: status?.bundle.size ?? 0 })
    const outcome = await services.install()
    if (outcome.kind === 'error') setInstall({ kind: 'failed', message: outcome.message })
    else if (outcome.result.state === 'installed') {
      setInstall({ kind: 'idle' })
      setOfferClosed(true)
      await refreshStatus()
      setMode('onlyoffice')
    } else if (outcome.result.state === 'failed')
      setInstall({ kind: 'failed', message: outcome.result.error?.message ?? '' })
  }

  // Leaving a live editor (DOCX, ONLYOFFICE) takes its current bytes first: the next view opens
  // them, and its unmount cannot lose what autosave has not exported yet.
  const switchMode = async (next: Mode) => {
    if (next === chosen || switching) return
    setSwitching(true)
    try {
      await session.export(false)
    } catch {
      // The editor could not export (it failed to start): the bytes before it stay current.
    } finally {
      setSwitching(false)
    }
    setMode(next)
  }

  const target = format ? conversionTarget(format) : null
  const convert = async () => {
    if (!services || !target) return
    setConversion({ kind: 'running' })
    const outcome = await services.convert(target)
    if (outcome.kind === 'error') {
      setConversion({ kind: 'failed', message: outcome.message })
      return
    }
    setConversion({ kind: 'done', path: outcome.result.path })
    services.openFile(outcome.result.path)
  }

  const download = async () => downloadBytes(await session.export(false), path)

  const showOffer =
    !!services &&
    !props.readOnly &&
    !offerClosed &&
    refusal === null &&
    status?.bundle.pinned === true &&
    only?.available === false

  if (services && (status === null || inspected.kind === 'pending')) {
    return (
      <div className="office-view-inner">
        <p className="viewer-note" role="status">
          {t('office.checking')}
        </p>
      </div>
    )
  }

  let body
  if (refusal) {
    body =
      refusal.kind === 'too-large' ? (
        <Alert as="div" className="cannot-preview" testId="office-too-large">
          <h3>{t('office.tooLargeTitle')}</h3>
          <p>{tooLargeDetail(refusal.details, t)}</p>
          <p>{t('office.refusedNothingChanged')}</p>
          <button type="button" onClick={() => void download()}>
            {t('viewer.download')}
          </button>
        </Alert>
      ) : (
        <Alert as="div" className="cannot-preview" testId="office-unchecked">
          <h3>{t('office.uncheckedTitle')}</h3>
          <p>{t('office.uncheckedDetail', { message: refusal.message })}</p>
          <button
            type="button"
            onClick={() => {
              setInspected({ kind: 'pending' })
              setInspectAttempt((attempt) => attempt + 1)
            }}
          >
            {t('office.retry')}
          </button>
          <button type="button" onClick={() => void download()}>
            {t('viewer.download')}
          </button>
        </Alert>
      )
  } else if (state === 'password-protected' || state === 'corrupt') {
    body = (
      <div className="cannot-preview" data-testid={`office-${state}`}>
        <h3>{state === 'corrupt' ? t('office.corruptTitle') : t('office.lockedTitle')}</h3>
        <p>{state === 'corrupt' ? t('office.corruptDetail') : t('office.lockedDetail')}</p>
        <button type="button" onClick={() => void download()}>
          {t('viewer.download')}
        </button>
      </div>
    )
  } else if (chosen === 'pages' && services) {
    body = <PagesView services={services} path={path} dark={props.dark} locale={props.locale} />
  } else if (chosen === 'onlyoffice') {
    body = <OnlyOfficePane engine={engine} onRetry={() => void engine.host?.start(session.bytes)} />
  } else {
    body = builtinBody()
  }

  function builtinBody() {
    const macro = isMacroEnabled(path)
    switch (format) {
      case 'docx': {
        const reasons = losses.map((loss) => t(`office.loss.${loss.feature}` as MessageKey, { count: loss.count }))
        if (macro) reasons.push(t('office.macroReadOnly'))
        const locked = props.readOnly || reasons.length > 0
        return (
          <>
            {reasons.length > 0 && (
              <p className="office-reason" role="note" data-testid="office-readonly-reason">
                {t('office.docxReadOnly', { reasons: reasons.join(', ') })}
              </p>
            )}
            <Suspense fallback={<p className="viewer-note">{t('office.reading')}</p>}>
              {/* Never keyed by revision: publishing changes it, and a re-keyed editor loses its
                  undo history. Other bytes re-key the whole view (the adapter's generation). */}
              <DocxView session={session} readOnly={locked} dark={props.dark} locale={props.locale} />
            </Suspense>
          </>
        )
      }
      case 'pptx':
        return <SlideView session={session} readOnly={props.readOnly} />
      case 'xlsx':
        return <SheetView session={session} readOnly={props.readOnly} />
      case 'odt':
      case 'ods':
      case 'odp':
        return <OdfThumbnail bytes={session.bytes} />
      default:
        return (
          <div className="cannot-preview" data-testid="office-no-builtin">
            <p>{pagesAvailable ? t('office.noBuiltinPreview') : t('office.needsLibreOffice')}</p>
            <button type="button" onClick={() => void download()}>
              {t('viewer.download')}
            </button>
          </div>
        )
    }
  }

  const modes: Array<{ id: Mode; label: string }> = []
  if (state === 'ok') {
    if (onlyAvailable && format !== null && only?.preview.includes(format))
      modes.push({ id: 'onlyoffice', label: t('office.mode.onlyoffice') })
    modes.push({ id: 'builtin', label: hasBuiltinEditor ? t('office.mode.builtin') : t('office.mode.approximate') })
    if (pagesAvailable) modes.push({ id: 'pages', label: t('office.mode.pages') })
  }

  return (
    <div className="office-view-inner">
      {services && status && (
        // A labelled group, not a `toolbar`: its controls are reached with Tab like any others.
        <div className="office-toolbar" role="group" aria-label={t('office.toolbar')}>
          {/* One line by default (every Office file shows it; the document needs the room); what
              each engine gives, or why it is missing, one click away. */}
          <details className="office-engines-details" data-testid="office-engines-details">
            <summary>
              {t('office.enginesSummary', {
                list: status.engines
                  .map(
                    (e) =>
                      `${t(`office.engine.${e.id}` as MessageKey)}${e.version ? ` ${e.version}` : ''}${
                        e.available ? '' : ` (${t('office.engineMissing')})`
                      }`,
                  )
                  .join(' · '),
              })}
            </summary>
            <ul className="office-engines" aria-label={t('office.engines')} data-testid="office-engines">
              {status.engines.map((e) => (
                <li key={e.id} data-engine={e.id} data-available={e.available}>
                  <strong>{t(`office.engine.${e.id}` as MessageKey)}</strong>
                  {e.version ? ` ${e.version}` : ''}:{' '}
                  {e.id === 'onlyoffice' && !e.available && !status.bundle.pinned
                    ? t('office.reason.unreleased')
                    : engineSummary(e, t)}
                </li>
              ))}
            </ul>
          </details>
          {modes.length > 1 && (
            <div
              className="office-modes"
              role="radiogroup"
              aria-label={t('office.view')}
              onKeyDown={(event) => {
                // Radio keys: arrows move the choice (and focus) within the group.
                const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key]
                if (step === undefined) return
                event.preventDefault()
                const at = modes.findIndex((m) => m.id === chosen)
                const next = modes[(at + step + modes.length) % modes.length]
                if (!next) return
                void switchMode(next.id)
                const buttons = event.currentTarget.querySelectorAll<HTMLElement>('[role="radio"]')
                buttons[modes.indexOf(next)]?.focus()
              }}
            >
              {modes.map((m) => (
                <button
                  key={m.id}
                  type="button"
                  role="radio"
                  aria-checked={chosen === m.id}
                  tabIndex={chosen === m.id ? 0 : -1}
                  onClick={() => void switchMode(m.id)}
                >
                  {m.label}
                </button>
              ))}
            </div>
          )}
          <div className="office-actions">
            {pagesAvailable && target && state === 'ok' && (
              <button type="button" onClick={() => void convert()} disabled={conversion.kind === 'running'}>
                {t('office.convertTo', { format: target.toUpperCase() })}
              </button>
            )}
            {libreAvailable && state === 'ok' && (
              <button
                type="button"
                onClick={() => void services.openExternal().then((o) => o.kind === 'error' && setNotice(o.message))}
              >
                {t('office.openExternal')}
              </button>
            )}
            {only?.available === false && status.bundle.pinned && offerClosed && (
              <button type="button" onClick={() => setOfferClosed(false)}>
                {t('office.getEditor')}
              </button>
            )}
            <button type="button" onClick={() => void download()}>
              {t('viewer.download')}
            </button>
          </div>
        </div>
      )}
      {conversion.kind === 'running' && converting >= 1 && (
        <p className="viewer-note" role="status" data-testid="office-converting">
          {t('office.convertingFor', { seconds: converting })}
        </p>
      )}
      {conversion.kind === 'done' && (
        <p className="viewer-note" role="status">
          {t('office.converted', { path: conversion.path })}
        </p>
      )}
      {conversion.kind === 'failed' && (
        <ErrorLine
          className="viewer-note viewer-error"
          message={t('office.convertFailed', { message: conversion.message })}
        />
      )}
      <ErrorLine className="viewer-note viewer-error" message={notice} />
      {services && status && !props.readOnly && refusal === null && (
        <PackOffer services={services} pack={status.pack} onInstalled={() => void refreshStatus()} />
      )}
      {showOffer && (
        <section className="office-offer" role="dialog" aria-labelledby="office-offer-title">
          <h3 id="office-offer-title">{t('office.offer.title')}</h3>
          <p>
            {t('office.offer.body', {
              size: status?.bundle.size ? formatBytes(status.bundle.size) : '?',
              licence: status?.bundle.licence ?? 'AGPL-3.0',
            })}
          </p>
          <p>{t('office.offer.local')}</p>
          {install.kind === 'running' && (
            <p role="status" data-testid="office-install-progress">
              {t('office.offer.progress', {
                received: formatBytes(install.received),
                total: formatBytes(install.total),
              })}
            </p>
          )}
          {install.kind === 'failed' && (
            <ErrorLine className="viewer-error" message={t('office.offer.failed', { message: install.message })} />
          )}
          <div className="office-offer-actions">
            <button type="button" onClick={() => void startInstall()} disabled={install.kind === 'running'}>
              {install.kind === 'failed' ? t('office.retry') : t('office.offer.install')}
            </button>
            <button type="button" onClick={() => setOfferClosed(true)} disabled={install.kind === 'running'}>
              {t('office.offer.cancel')}
            </button>
          </div>
        </section>
      )}
      <div className="office-body" data-mode={chosen ?? undefined} hidden={chosen === 'onlyoffice' && state === 'ok'}>
        {chosen !== 'onlyoffice' || state !== 'ok' ? body : null}
      </div>
      {chosen === 'onlyoffice' && state === 'ok' && body}
    </div>
  )
}

function engineSummary(engine: OfficeEngine, t: ReturnType<typeof useI18n>['t']): string {
  if (!engine.available) {
    if (engine.id === 'libreoffice-wasm') return t('office.pack.notInstalled')
    const reason = engine.reason ?? ''
    return KNOWN_REASONS.has(reason) ? t(`office.reason.${reason}` as MessageKey) : t('office.reason.unavailable')
  }
  switch (engine.id) {
    case 'builtin':
      return t('office.summary.builtin')
    case 'libreoffice':
      return engine.reason === 'no-resident-listener'
        ? t('office.summary.libreofficeSlow')
        : t('office.summary.libreoffice')
    case 'libreoffice-wasm':
      return t('office.summary.libreofficeWasm')
    case 'onlyoffice':
      return t('office.summary.onlyoffice')
  }
}
