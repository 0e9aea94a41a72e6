import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { useI18n } from '../../../../i18n'
import { Alert } from '../../../../ui/Alert'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { Icon } from '../../../../ui/Icon'
import { useStore } from '../../../../ui/store'
import { Unsupported } from '../../Unsupported'
import { Outline } from './Outline'
import type { PdfReader } from './reader'
import { HIGHLIGHT_COLORS, ZOOM_STEPS } from './reader-state'
import { Thumbnails } from './Thumbnails'

/** Toolbar buttons keep the text selection (Highlight works on it) and the focus where it is. */
const keepSelection = (event: MouseEvent) => event.preventDefault()
/** A click with no pointer (Enter or Space on the focused button). */
const fromKeyboard = (event: MouseEvent) => event.detail === 0

function ToolButton(props: {
  icon: string
  label: string
  onClick: (event: MouseEvent<HTMLButtonElement>) => void
  pressed?: boolean
  disabled?: boolean
  children?: ReactNode
}) {
  return (
    <button
      type="button"
      className="pdf-tool"
      aria-label={props.label}
      title={props.label}
      aria-pressed={props.pressed}
      disabled={props.disabled}
      onMouseDown={keepSelection}
      onClick={props.onClick}
    >
      <Icon name={props.icon} />
      {props.children}
    </button>
  )
}

function PageBox(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const page = useStore(props.reader.store, (s) => s.page)
  const count = useStore(props.reader.store, (s) => s.pageCount)
  const [text, setText] = useState<string | null>(null)
  const commit = () => {
    if (text !== null) props.reader.goToPage(Number(text.trim()))
    setText(null)
  }
  return (
    <span className="pdf-page-box">
      <label>
        <span className="pdf-label">{t('pdf.page')}</span>
        <input
          type="text"
          inputMode="numeric"
          aria-label={t('pdf.page')}
          value={text ?? String(page)}
          size={Math.max(2, String(count).length)}
          onFocus={(event) => event.currentTarget.select()}
          onChange={(event) => setText(event.currentTarget.value)}
          onBlur={commit}
          onKeyDown={(event) => {
            if (event.key === 'Enter') commit()
            if (event.key === 'Escape') setText(null)
          }}
        />
      </label>
      <span className="pdf-label">{t('pdf.ofPages', { count })}</span>
    </span>
  )
}

function ZoomSelect(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const scaleValue = useStore(props.reader.store, (s) => s.scaleValue)
  const scale = useStore(props.reader.store, (s) => s.scale)
  const percent = (value: number) => t('pdf.percent', { percent: Math.round(value * 100) })
  const isStep = ZOOM_STEPS.some((step) => String(step) === scaleValue)
  const isPreset = ['page-width', 'page-fit', 'page-actual'].includes(scaleValue)
  return (
    <select
      className="pdf-zoom"
      aria-label={t('pdf.zoom')}
      value={isPreset || isStep ? scaleValue : 'custom'}
      onChange={(event) => props.reader.setZoom(event.currentTarget.value)}
    >
      <option value="page-width">{t('pdf.fitWidth')}</option>
      <option value="page-fit">{t('pdf.fitPage')}</option>
      <option value="page-actual">{t('pdf.actualSize')}</option>
      {!isPreset && !isStep && (
        <option value="custom" disabled>
          {percent(scale)}
        </option>
      )}
      {ZOOM_STEPS.map((step) => (
        <option key={step} value={String(step)}>
          {percent(step)}
        </option>
      ))}
    </select>
  )
}

function FindBar(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const find = useStore(props.reader.store, (s) => s.find)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    input.current?.focus()
    input.current?.select()
  }, [])
  let status = ''
  if (find.query !== '' && find.status !== 'pending' && find.status !== 'idle') {
    status = find.total > 0 ? t('pdf.matchCount', { current: find.current, total: find.total }) : t('pdf.noMatches')
  }
  return (
    <div className="pdf-findbar" role="search">
      <input
        ref={input}
        type="search"
        aria-label={t('pdf.findInDocument')}
        placeholder={t('pdf.findInDocument')}
        value={find.query}
        onChange={(event) => props.reader.find(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault()
            props.reader.findNext(event.shiftKey)
          } else if (event.key === 'Escape') {
            event.preventDefault()
            props.reader.closeFind()
          }
        }}
      />
      <ToolButton icon="arrow-up" label={t('pdf.findPrevious')} onClick={() => props.reader.findNext(true)} />
      <ToolButton icon="arrow-down" label={t('pdf.findNext')} onClick={() => props.reader.findNext(false)} />
      <label className="pdf-check">
        <input
          type="checkbox"
          checked={find.highlightAll}
          onChange={(event) => props.reader.setHighlightAll(event.currentTarget.checked)}
        />
        {t('pdf.highlightAll')}
      </label>
      <span className="pdf-match-count" role="status" aria-live="polite" data-testid="pdf-match-count">
        {status}
      </span>
      <ToolButton icon="close" label={t('pdf.closeFind')} onClick={() => props.reader.closeFind()} />
    </div>
  )
}

function AnnotationTools(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const { reader } = props
  const tool = useStore(reader.store, (s) => s.tool)
  const color = useStore(reader.store, (s) => s.highlightColor)
  const canUndo = useStore(reader.store, (s) => s.canUndo)
  const canRedo = useStore(reader.store, (s) => s.canRedo)
  return (
    <div className="pdf-group" role="group" aria-label={t('pdf.highlight')}>
      <ToolButton
        icon="edit"
        label={t('pdf.highlight')}
        pressed={tool === 'highlight'}
        onClick={(event) => reader.highlight({ fromKeyboard: fromKeyboard(event) })}
      />
      <span className="pdf-swatches" role="radiogroup" aria-label={t('pdf.highlightColor')}>
        {HIGHLIGHT_COLORS.map((c) => (
          <button
            key={c.name}
            type="button"
            role="radio"
            aria-checked={color === c.name}
            aria-label={t(`pdf.color.${c.name}`)}
            title={t(`pdf.color.${c.name}`)}
            className="pdf-swatch"
            style={{ background: c.value }}
            onMouseDown={keepSelection}
            onClick={() => reader.setHighlightColor(c.name)}
          />
        ))}
      </span>
      <ToolButton
        icon="note"
        label={t('pdf.freeText')}
        pressed={tool === 'freetext'}
        onClick={(event) => reader.freeText({ fromKeyboard: fromKeyboard(event) })}
      />
      <ToolButton icon="discard" label={t('pdf.undo')} disabled={!canUndo} onClick={() => reader.undo()} />
      <ToolButton icon="redo" label={t('pdf.redo')} disabled={!canRedo} onClick={() => reader.redo()} />
    </div>
  )
}

function Toolbar(props: { reader: PdfReader; compact: boolean }) {
  const { t } = useI18n()
  const { reader } = props
  const state = useStore(reader.store)
  const ready = state.phase.kind === 'ready'
  return (
    <div className="pdf-toolbar" role="toolbar" aria-label={t('pdf.tools')}>
      {!props.compact && (
        <ToolButton
          icon="layout-sidebar-left"
          label={t('pdf.toggleSidebar')}
          pressed={state.sidebarOpen}
          onClick={() => reader.toggleSidebar()}
        />
      )}
      <div className="pdf-group">
        <ToolButton
          icon="chevron-up"
          label={t('pdf.previousPage')}
          disabled={!ready || state.page <= 1}
          onClick={() => reader.previousPage()}
        />
        <ToolButton
          icon="chevron-down"
          label={t('pdf.nextPage')}
          disabled={!ready || state.page >= state.pageCount}
          onClick={() => reader.nextPage()}
        />
        <PageBox reader={reader} />
      </div>
      <div className="pdf-group">
        <ToolButton icon="zoom-out" label={t('pdf.zoomOut')} disabled={!ready} onClick={() => reader.zoomOut()} />
        <ToolButton icon="zoom-in" label={t('pdf.zoomIn')} disabled={!ready} onClick={() => reader.zoomIn()} />
        <ZoomSelect reader={reader} />
      </div>
      <div className="pdf-group">
        <ToolButton
          icon="search"
          label={t('pdf.find')}
          pressed={state.find.open}
          disabled={!ready}
          onClick={() => (state.find.open ? reader.closeFind() : reader.openFind())}
        />
      </div>
      {state.editable && ready && <AnnotationTools reader={reader} />}
      {!props.compact && (
        <label className="pdf-check" title={t('pdf.keepLineBreaksHint')}>
          <input
            type="checkbox"
            checked={state.keepLineBreaks}
            onChange={(event) => reader.setKeepLineBreaks(event.currentTarget.checked)}
          />
          {t('pdf.keepLineBreaks')}
        </label>
      )}
    </div>
  )
}

function Sidebar(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const view = useStore(props.reader.store, (s) => s.sidebarView)
  return (
    <aside className="pdf-sidebar" aria-label={t('pdf.sidebar')}>
      <div className="pdf-sidebar-tabs" role="tablist">
        {(['thumbnails', 'outline'] as const).map((id) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={view === id}
            aria-label={t(id === 'thumbnails' ? 'pdf.thumbnails' : 'pdf.outline')}
            title={t(id === 'thumbnails' ? 'pdf.thumbnails' : 'pdf.outline')}
            className="pdf-tool"
            onClick={() => props.reader.showSidebarView(id)}
          >
            <Icon name={id === 'thumbnails' ? 'files' : 'list-tree'} />
          </button>
        ))}
      </div>
      <div className="pdf-sidebar-body" role="tabpanel">
        {view === 'thumbnails' ? <Thumbnails reader={props.reader} /> : <Outline reader={props.reader} />}
      </div>
    </aside>
  )
}

function PasswordPrompt(props: { reader: PdfReader; name: string; incorrect: boolean }) {
  const { t } = useI18n()
  const [password, setPassword] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [props.incorrect])
  return (
    <form
      className="pdf-password"
      role="dialog"
      aria-labelledby="pdf-password-title"
      onSubmit={(event) => {
        event.preventDefault()
        props.reader.submitPassword(password)
        setPassword('')
      }}
    >
      <h3 id="pdf-password-title">
        <Icon name="lock" /> {t('pdf.password.title')}
      </h3>
      <p>{t('pdf.password.prompt', { name: props.name })}</p>
      <label>
        {t('pdf.password.label')}
        <input
          ref={input}
          type="password"
          autoComplete="off"
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          aria-invalid={props.incorrect}
          aria-describedby={props.incorrect ? 'pdf-password-error' : undefined}
        />
      </label>
      {props.incorrect && (
        <Alert id="pdf-password-error" className="pdf-error">
          {t('pdf.password.incorrect')}
        </Alert>
      )}
      <div className="pdf-password-actions">
        <button type="submit" className="primary">
          {t('pdf.password.open')}
        </button>
        <button type="button" onClick={() => props.reader.cancelPassword()}>
          {t('pdf.password.cancel')}
        </button>
      </div>
    </form>
  )
}

/**
 * The reader's chrome around pdf.js's pages: flat toolbar (wrapping in a narrow pane), find bar,
 * collapsible 180 px sidebar with thumbnails and outline, and the explicit states (opening,
 * password, damaged, too large, locked) that replace a blank pane.
 */
export function ReaderView(props: { reader: PdfReader; path: string; compact: boolean }) {
  const { t } = useI18n()
  const { reader } = props
  const phase = useStore(reader.store, (s) => s.phase)
  const sidebarOpen = useStore(reader.store, (s) => s.sidebarOpen)
  const brokenPages = useStore(reader.store, (s) => s.brokenPages)
  const findOpen = useStore(reader.store, (s) => s.find.open)
  const stage = useRef<HTMLDivElement>(null)
  const name = props.path.slice(props.path.lastIndexOf('/') + 1)
  useEffect(() => {
    if (stage.current) reader.attach(stage.current)
  }, [reader])

  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f') {
      event.preventDefault()
      event.stopPropagation()
      reader.openFind()
      const frame = event.currentTarget as HTMLElement
      focusFindBox(frame)
    }
  }
  // Closing a note with Escape (pdf.js blurs its editor) leaves the focus on the page's body, not in
  // the reader; Ctrl/Cmd+F then still means "find in the document on screen" — for the one full
  // (not compact) reader that is showing.
  useEffect(() => {
    if (props.compact) return
    const onWindowKey = (event: globalThis.KeyboardEvent) => {
      if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || event.altKey) return
      if (event.key.toLowerCase() !== 'f') return
      if (document.activeElement && document.activeElement !== document.body) return
      const frame = stage.current?.closest<HTMLElement>('.pdf-frame')
      if (!frame || frame.getClientRects().length === 0) return
      event.preventDefault()
      reader.openFind()
      focusFindBox(frame)
    }
    window.addEventListener('keydown', onWindowKey)
    return () => window.removeEventListener('keydown', onWindowKey)
  }, [reader, props.compact])

  let overlay: ReactNode = null
  if (phase.kind === 'loading') {
    overlay = (
      <p className="pdf-state viewer-note" role="status">
        {t('pdf.opening')}
      </p>
    )
  } else if (phase.kind === 'password') {
    overlay = <PasswordPrompt reader={reader} name={name} incorrect={phase.incorrect} />
  } else if (phase.kind === 'failed') {
    // The reader exists, so every failure says what happened to this file, never "cannot preview
    // this file yet": damaged (pdf.js could not parse it), locked, or over the size limit.
    const { title, reason } =
      phase.reason === 'corrupt'
        ? { title: t('pdf.corrupt', { message: phase.message || t('pdf.corruptUnknown') }), reason: '' }
        : phase.reason === 'too-large'
          ? { title: t('pdf.notOpened'), reason: t('pdf.tooLarge') }
          : phase.reason === 'locked'
            ? { title: t('pdf.password.title'), reason: t('pdf.locked') }
            : { title: t('pdf.failed', { message: phase.message }), reason: '' }
    overlay = (
      <div className="pdf-state" data-testid="pdf-failed" data-reason={phase.reason}>
        <Unsupported
          path={props.path}
          mime="application/pdf"
          size={reader.originalBytes.length}
          title={title}
          reason={reason}
          onDownload={async () =>
            new Blob([reader.originalBytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' })
          }
        />
      </div>
    )
  }

  return (
    <div className="pdf-frame" onKeyDown={onKeyDown} data-phase={phase.kind}>
      {phase.kind === 'ready' && <Toolbar reader={reader} compact={props.compact} />}
      {phase.kind === 'ready' && findOpen && <FindBar reader={reader} />}
      <div className="pdf-body">
        {phase.kind === 'ready' && sidebarOpen && !props.compact && <Sidebar reader={reader} />}
        <div className="pdf-main">
          {brokenPages.length > 0 && (
            <ErrorLine
              className="pdf-broken"
              message={brokenPages.map((page) => t('pdf.pageBroken', { page })).join(' ')}
            />
          )}
          {/* pdf.js owns what is inside the stage: React never renders children there. */}
          <div className="pdf-stage" ref={stage} aria-label={name} role="document" />
          {overlay}
        </div>
      </div>
    </div>
  )
}

/**
 * Puts the focus in the find box once it is there. The bar may only render with the state change,
 * and pdf.js may still be moving the focus back to a note it just committed (Escape, then Ctrl+F at
 * once): so the box is focused now, after the next paint and twice more within a quarter second,
 * unless the person has already moved on (the focus left the reader).
 */
function focusFindBox(frame: HTMLElement): void {
  const focusBox = () => {
    const box = frame.querySelector<HTMLInputElement>('.pdf-findbar input')
    if (!box || box === document.activeElement) return
    const active = document.activeElement
    if (active && active !== document.body && !frame.contains(active)) return
    box.focus()
    box.select()
  }
  focusBox()
  requestAnimationFrame(focusBox)
  setTimeout(focusBox, 80)
  setTimeout(focusBox, 250)
}
