import { Fragment, useEffect, useRef, useState } from 'react'
import { useI18n } from '../../i18n'
import { Icon } from '../Icon'
import { CHANGE_NAVIGATION_EVENT } from './change-navigation'
import './diff-view.css'
import { layoutHunks, type DiffHunk, type ShownLine } from './diff-model'

export interface LineAnchor {
  readonly side: 'old' | 'new'
  readonly line: number
  readonly text: string
}

/** Below this width side by side falls back to unified: each side would be too narrow to read. */
export const SPLIT_MIN_PX = 560

function LineText(props: { line: ShownLine }) {
  const { line } = props
  if (!line.segments) return <>{line.text}</>
  return (
    <>
      {line.segments.map((segment, i) =>
        segment.changed ? (
          <mark key={i} className={`word-${line.kind}`}>
            {segment.text}
          </mark>
        ) : (
          <Fragment key={i}>{segment.text}</Fragment>
        ),
      )}
    </>
  )
}

/**
 * Server hunks, unified or side by side. Side by side is one grid — old number, old text, new
 * number, new text — so both sides scroll as one, lines wrap instead of scrolling sideways, and
 * each side has one number gutter. Changed words inside paired lines are highlighted.
 */
export function DiffView(props: {
  hunks: readonly DiffHunk[]
  layout: 'unified' | 'split'
  onComment?: ((anchor: LineAnchor) => void) | undefined
  /** "More context" around the changes, and the whole file (Review; absent in compact diffs). */
  context?: { whole: boolean; onMore: () => void; onWhole: () => void } | undefined
  /** Rendered after the hunks (e.g. "Load more"). */
  footer?: React.ReactNode
  compact?: boolean
  /** Names this diff for tests and tools (Review's file diff is `review-diff`). */
  testId?: string
}) {
  const { t } = useI18n()
  const root = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  const [current, setCurrent] = useState(-1)
  const { hunks, changes } = layoutHunks(props.hunks)
  const layout = props.layout === 'split' && width >= SPLIT_MIN_PX ? 'split' : 'unified'

  useEffect(() => {
    const element = root.current
    if (!element) return
    const observer = new ResizeObserver(([entry]) => setWidth(entry?.contentRect.width ?? 0))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])

  const go = (index: number) => {
    if (changes === 0) return
    const next = Math.max(0, Math.min(changes - 1, index))
    setCurrent(next)
    const target = root.current?.querySelector<HTMLElement>(`[data-change="${next}"]`)
    target?.scrollIntoView({ block: 'center' })
  }
  const goRef = useRef(go)
  const currentRef = useRef(current)
  useEffect(() => {
    goRef.current = go
    currentRef.current = current
  })
  useEffect(() => {
    if (props.compact) return
    const onNavigate = (event: Event) => goRef.current(currentRef.current + (event as CustomEvent<number>).detail)
    window.addEventListener(CHANGE_NAVIGATION_EVENT, onNavigate)
    return () => window.removeEventListener(CHANGE_NAVIGATION_EVENT, onNavigate)
  }, [props.compact])

  const anchorOf = (line: ShownLine): LineAnchor | null =>
    line.new_line !== null && line.kind !== 'del'
      ? { side: 'new', line: line.new_line, text: line.text }
      : line.old_line !== null
        ? { side: 'old', line: line.old_line, text: line.text }
        : null
  const text = (line: ShownLine, side: 'unified' | 'old' | 'new') => {
    const sign = line.kind === 'add' ? '+' : line.kind === 'del' ? '−' : ' '
    const content = (
      <>
        <span className="dv-sign" aria-hidden="true">
          {sign}
        </span>
        <LineText line={line} />
      </>
    )
    const className = `dv-text dv-${line.kind}${line.changeStart !== null && line.changeStart === current ? ' dv-current' : ''}`
    if (!props.onComment) return <span className={className}>{content}</span>
    const anchor = anchorOf(line)
    return (
      <button
        type="button"
        className={className}
        data-testid="review-line"
        data-side={side}
        aria-label={t('review.commentOnLine', { line: anchor?.line ?? '', text: line.text })}
        title={t('review.commentHint')}
        onClick={() => anchor && props.onComment?.(anchor)}
      >
        {content}
      </button>
    )
  }

  return (
    <div
      ref={root}
      className={`dv dv-${layout}${props.compact ? ' dv-compact' : ''}`}
      data-testid={props.testId ?? 'diff-view'}
      data-layout={layout}
    >
      {!props.compact && (
        <div className="dv-toolbar" role="toolbar" aria-label={t('review.changes')}>
          <span className="dv-count" data-testid="diff-change-count">
            {changes === 0
              ? t('review.noChanges')
              : t('review.changeOf', { current: Math.max(1, current + 1), total: changes })}
          </span>
          <button
            type="button"
            className="icon-button"
            aria-label={t('command.previousChange')}
            title={`${t('command.previousChange')} (Shift+F7)`}
            disabled={changes === 0}
            onClick={() => go(current - 1)}
            data-testid="diff-previous"
          >
            <Icon name="arrow-up" />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={t('command.nextChange')}
            title={`${t('command.nextChange')} (F7)`}
            disabled={changes === 0}
            onClick={() => go(current + 1)}
            data-testid="diff-next"
          >
            <Icon name="arrow-down" />
          </button>
          {props.context && (
            <>
              <button
                type="button"
                className="icon-button"
                aria-label={t('review.moreContext')}
                title={t('review.moreContext')}
                disabled={props.context.whole}
                onClick={props.context.onMore}
                data-testid="diff-more-context"
              >
                <Icon name="unfold" />
              </button>
              <button
                type="button"
                className="dv-whole"
                disabled={props.context.whole}
                onClick={props.context.onWhole}
                data-testid="diff-whole-file"
              >
                {props.context.whole ? t('review.wholeFileShown') : t('review.wholeFile')}
              </button>
            </>
          )}
          {props.layout === 'split' && layout === 'unified' && width > 0 && (
            <span className="dv-note">{t('review.splitTooNarrow')}</span>
          )}
        </div>
      )}
      {hunks.map((hunk, h) => (
        <div key={h} className="dv-hunk">
          <div className="dv-hunk-head">
            @@ −{hunk.header.old_start} +{hunk.header.new_start} @@
            {hunk.header.continued ? ` ${t('review.continued')}` : ''}
          </div>
          {layout === 'unified'
            ? hunk.unified.map((line, i) => (
                <div key={i} className={`dv-row dv-row-${line.kind}`} data-change={line.changeStart ?? undefined}>
                  <span className="dv-gutter">{line.old_line ?? ''}</span>
                  <span className="dv-gutter">{line.new_line ?? ''}</span>
                  {text(line, 'unified')}
                </div>
              ))
            : hunk.split.map((row, i) => (
                <div key={i} className="dv-row dv-row-split" data-change={row.changeStart ?? undefined}>
                  <span className={`dv-gutter dv-gutter-${row.left?.kind ?? 'empty'}`}>{row.left?.old_line ?? ''}</span>
                  {row.left ? text(row.left, 'old') : <span className="dv-text dv-empty" />}
                  <span className={`dv-gutter dv-gutter-${row.right?.kind ?? 'empty'}`}>
                    {row.right?.new_line ?? ''}
                  </span>
                  {row.right ? text(row.right, 'new') : <span className="dv-text dv-empty" />}
                </div>
              ))}
        </div>
      ))}
      {props.footer}
    </div>
  )
}
