import type { ReactNode } from 'react'
import type {
  CellState,
  DocumentDiff,
  DocxDiff,
  DocxDiffEntry,
  PdfAnnotationChange,
  PdfAnnotationInfo,
  PdfDiff,
  PptxDiff,
  PptxSlideDiff,
  TextSegment,
  XlsxDiff,
  XlsxSheetDiff,
} from '../../../../shared/protocol'
// Not the protocol index: that would share the protocol's schemas (and zod) with this lazy chunk,
// building them before the renderer turns zod's eval probe off (src/renderer/src/zod-config.ts).
import { countsOf } from '../../../../shared/protocol/document-counts'
import { isMessageKey, useI18n } from '../../i18n'
import { countsLabel, countsText } from './counts'
import './document-diff.css'

/**
 * What changed inside a document (issue 26), drawn from the engine's DocumentDiff: a redline of
 * paragraphs, a table of cells, slides with their shapes, or annotations. One component for
 * Review, approval cards and restore previews, so a person reads a change the same way wherever
 * it is shown. `compact`: bounded height and scrollable (an approval card in the chat column).
 */
export function DocumentDiffView(props: {
  diff: DocumentDiff
  path: string
  compact?: boolean
  /** PDF: "Show in reader" opens the file at that page; absent where the file cannot be opened. */
  onShowPage?: ((page: number) => void) | undefined
  /** PPTX: before/after pictures of a listed slide (Review draws them; approval cards do not). */
  slidePictures?: ((slide: PptxSlideDiff) => ReactNode) | undefined
}) {
  const { t } = useI18n()
  const { diff } = props
  const counts = countsOf(diff)
  return (
    <section
      className={`docdiff${props.compact ? ' docdiff-compact' : ''}`}
      data-testid="document-diff"
      data-kind={diff.kind}
      aria-label={t('docDiff.label', { path: props.path })}
      // A bounded box that scrolls must be reachable to scroll by keyboard.
      tabIndex={props.compact ? 0 : undefined}
    >
      <p className="docdiff-summary" data-testid="document-diff-counts" aria-label={countsLabel(counts, t)}>
        {countsText(counts, t)}
      </p>
      {diff.kind === 'docx' && <DocxView diff={diff} />}
      {diff.kind === 'xlsx' && <XlsxView diff={diff} />}
      {diff.kind === 'pptx' && <PptxView diff={diff} slidePictures={props.slidePictures} />}
      {diff.kind === 'pdf' && <PdfView diff={diff} onShowPage={props.onShowPage} />}
    </section>
  )
}

/** Word-level runs: added underlined on green, removed struck through on red (the text diff's colours). */
function Segments(props: { segments: readonly TextSegment[] }) {
  return (
    <span className="docdiff-text">
      {props.segments.map((segment, index) =>
        segment.kind === 'added' ? (
          <ins key={index}>{segment.text}</ins>
        ) : segment.kind === 'removed' ? (
          <del key={index}>{segment.text}</del>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </span>
  )
}

function ChangeBadge(props: { change: string; children?: ReactNode }) {
  const { t } = useI18n()
  const key = `docDiff.change.${props.change}`
  return (
    <span className={`docdiff-badge docdiff-badge-${props.change}`}>
      {props.children ?? (isMessageKey(key) ? t(key) : props.change)}
    </span>
  )
}

function Truncated(props: { shown: number; total?: number }) {
  const { t } = useI18n()
  return (
    <p className="docdiff-note" role="note">
      {props.total !== undefined
        ? t('docDiff.truncatedOf', { shown: props.shown, total: props.total })
        : t('docDiff.truncated', { shown: props.shown })}
    </p>
  )
}

// --- Word --------------------------------------------------------------------------------------

function anchorText(entry: DocxDiffEntry): string {
  const { before_anchor: before, after_anchor: after } = entry
  if (before !== null && after !== null && before !== after) return `${before} → ${after}`
  return after ?? before ?? ''
}

function DocxView(props: { diff: DocxDiff }) {
  const { t } = useI18n()
  const { diff } = props
  if (diff.entries.length === 0) return <p className="docdiff-note">{t('docDiff.docx.none')}</p>
  return (
    <>
      <ol className="docdiff-entries" aria-label={t('docDiff.docx.entries')}>
        {diff.entries.map((entry, index) => {
          const storyKey = `docDiff.story.${entry.story}`
          const story = isMessageKey(storyKey) ? t(storyKey) : entry.story
          const anchor = anchorText(entry)
          return (
            <li
              key={index}
              className="docdiff-entry"
              data-testid="docx-entry"
              data-change={entry.change}
              data-anchor={entry.after_anchor ?? entry.before_anchor ?? ''}
            >
              <div className="docdiff-entry-head">
                <ChangeBadge change={entry.change} />
                <span className="docdiff-story">{story}</span>
                {anchor !== '' && <code className="docdiff-anchor">{anchor}</code>}
                {entry.style !== null && <span className="docdiff-style">{entry.style}</span>}
              </div>
              {entry.segments.length > 0 && (
                <p className="docdiff-paragraph">
                  <Segments segments={entry.segments} />
                </p>
              )}
              {entry.formatting.length > 0 && (
                <ul className="docdiff-formatting" aria-label={t('docDiff.docx.formatting')}>
                  {entry.formatting.map((change, at) => (
                    <li key={at}>{change}</li>
                  ))}
                </ul>
              )}
            </li>
          )
        })}
      </ol>
      {diff.truncated && <Truncated shown={diff.entries.length} />}
    </>
  )
}

// --- Excel -------------------------------------------------------------------------------------

function Cell(props: { state: CellState | null }) {
  const { t } = useI18n()
  const { state } = props
  if (state === null || (state.value === null && state.formula === null))
    return <span className="docdiff-empty">{t('docDiff.xlsx.empty')}</span>
  return (
    <>
      <span className="docdiff-value">{state.value ?? ''}</span>
      {state.formula !== null && <code className="docdiff-formula">={state.formula}</code>}
    </>
  )
}

function SheetView(props: { sheet: XlsxSheetDiff }) {
  const { t } = useI18n()
  const { sheet } = props
  return (
    <section
      className="docdiff-group"
      data-testid="xlsx-sheet"
      data-change={sheet.change}
      aria-label={t('docDiff.xlsx.sheet', { name: sheet.name })}
    >
      <h4 className="docdiff-group-head">
        <span>{t('docDiff.xlsx.sheet', { name: sheet.name })}</span>
        {sheet.change !== 'changed' && (
          <ChangeBadge change={sheet.change}>
            {sheet.change === 'renamed' && sheet.old_name !== null
              ? t('docDiff.xlsx.renamedFrom', { name: sheet.old_name })
              : undefined}
          </ChangeBadge>
        )}
        <span className="docdiff-muted">
          {t(sheet.cell_count === 1 ? 'docCounts.short.cell.one' : 'docCounts.short.cell.other', {
            count: sheet.cell_count,
          })}
        </span>
      </h4>
      {sheet.cells.length > 0 && (
        <div className="docdiff-table-scroll">
          <table className="docdiff-table">
            <thead>
              <tr>
                <th scope="col">{t('docDiff.xlsx.address')}</th>
                <th scope="col">{t('docDiff.before')}</th>
                <th scope="col">{t('docDiff.after')}</th>
              </tr>
            </thead>
            <tbody>
              {sheet.cells.map((cell) => (
                <tr key={cell.address} data-testid="xlsx-cell" data-address={cell.address}>
                  <th scope="row">
                    <code>{cell.address}</code>
                  </th>
                  <td className="docdiff-cell-before">
                    <Cell state={cell.before} />
                  </td>
                  <td className="docdiff-cell-after">
                    <Cell state={cell.after} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {sheet.truncated && <Truncated shown={sheet.cells.length} total={sheet.cell_count} />}
    </section>
  )
}

function XlsxView(props: { diff: XlsxDiff }) {
  const { t } = useI18n()
  if (props.diff.sheets.length === 0) return <p className="docdiff-note">{t('docDiff.none')}</p>
  return (
    <>
      {props.diff.sheets.map((sheet, index) => (
        <SheetView key={`${index}:${sheet.name}`} sheet={sheet} />
      ))}
    </>
  )
}

// --- PowerPoint --------------------------------------------------------------------------------

function slideBadge(slide: PptxSlideDiff, t: ReturnType<typeof useI18n>['t']): string {
  if (slide.change === 'moved' && slide.before_index !== null)
    return t('docDiff.pptx.movedFrom', { index: slide.before_index })
  return t(`docDiff.change.${slide.change}`)
}

function PptxView(props: { diff: PptxDiff; slidePictures?: ((slide: PptxSlideDiff) => ReactNode) | undefined }) {
  const { t } = useI18n()
  if (props.diff.slides.length === 0) return <p className="docdiff-note">{t('docDiff.none')}</p>
  return (
    <>
      {props.diff.slides.map((slide, index) => {
        const number = slide.after_index ?? slide.before_index ?? index + 1
        const heading = t('docDiff.pptx.slide', { index: number })
        return (
          <section
            key={index}
            className="docdiff-group"
            data-testid="pptx-slide"
            data-change={slide.change}
            data-index={number}
            aria-label={heading}
          >
            <h4 className="docdiff-group-head">
              <span>{heading}</span>
              <ChangeBadge change={slide.change}>{slideBadge(slide, t)}</ChangeBadge>
              {slide.title !== '' && <span className="docdiff-muted">{slide.title}</span>}
            </h4>
            {props.slidePictures?.(slide)}
            {slide.shapes.length > 0 && (
              <ul className="docdiff-entries">
                {slide.shapes.map((shape) => (
                  <li
                    key={`${shape.shape}:${shape.change}`}
                    className="docdiff-entry"
                    data-testid="pptx-shape"
                    data-change={shape.change}
                    data-shape={shape.shape}
                  >
                    <div className="docdiff-entry-head">
                      <ChangeBadge change={shape.change} />
                      <span>{shape.name}</span>
                      <code className="docdiff-anchor">{shape.shape}</code>
                    </div>
                    {shape.segments.length > 0 && (
                      <p className="docdiff-paragraph">
                        <Segments segments={shape.segments} />
                      </p>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
        )
      })}
    </>
  )
}

// --- PDF ---------------------------------------------------------------------------------------

function annotationType(type: string, t: ReturnType<typeof useI18n>['t']): string {
  const key = `docDiff.pdf.type.${type}`
  return isMessageKey(key) ? t(key) : type
}

function AnnotationText(props: { info: PdfAnnotationInfo }) {
  const { info } = props
  return (
    <>
      {info.quoted !== '' && <q className="docdiff-quoted">{info.quoted}</q>}
      {info.contents !== '' && <span className="docdiff-contents">{info.contents}</span>}
    </>
  )
}

function AnnotationRow(props: { change: PdfAnnotationChange; onShowPage?: ((page: number) => void) | undefined }) {
  const { t } = useI18n()
  const { change } = props
  // The reader opens the file as it is now: an annotation still in it is shown where it is; a
  // removed one where it was (same page numbering unless pages moved too).
  const info = change.after ?? change.before
  if (info === null) return null
  const type = annotationType(info.type, t)
  const colour = info.color
  return (
    <tr data-testid="pdf-annotation" data-change={change.change} data-id={info.id}>
      <td>
        <ChangeBadge change={change.change} />
      </td>
      <td className="docdiff-num">{info.page}</td>
      <td>
        {colour !== null && (
          <span
            className="docdiff-swatch"
            style={{ background: colour }}
            role="img"
            aria-label={t('docDiff.pdf.colour', { colour })}
            title={colour}
          />
        )}
        {type}
      </td>
      <td className="docdiff-annotation-text">
        {change.change === 'changed' && change.before !== null && change.after !== null ? (
          <>
            <del>
              <AnnotationText info={change.before} />
            </del>{' '}
            <ins>
              <AnnotationText info={change.after} />
            </ins>
          </>
        ) : (
          <AnnotationText info={info} />
        )}
      </td>
      {props.onShowPage && (
        <td>
          <button
            type="button"
            className="docdiff-show"
            aria-label={t('docDiff.pdf.showLabel', { type, page: info.page })}
            onClick={() => props.onShowPage?.(info.page)}
          >
            {t('docDiff.pdf.show')}
          </button>
        </td>
      )}
    </tr>
  )
}

function PdfView(props: { diff: PdfDiff; onShowPage?: ((page: number) => void) | undefined }) {
  const { t } = useI18n()
  const { diff } = props
  return (
    <>
      {diff.annotations.length > 0 ? (
        <div className="docdiff-table-scroll">
          <table className="docdiff-table" aria-label={t('docDiff.pdf.annotations')}>
            <thead>
              <tr>
                <th scope="col">{t('docDiff.pdf.change')}</th>
                <th scope="col">{t('docDiff.pdf.page')}</th>
                <th scope="col">{t('docDiff.pdf.type')}</th>
                <th scope="col">{t('docDiff.pdf.text')}</th>
                {props.onShowPage && (
                  <th scope="col">
                    <span className="visually-hidden">{t('docDiff.pdf.show')}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {diff.annotations.map((change, index) => (
                <AnnotationRow key={index} change={change} onShowPage={props.onShowPage} />
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="docdiff-note">{t('docDiff.pdf.noAnnotations')}</p>
      )}
      {diff.pages_changed.length > 0 && (
        <p className="docdiff-note" data-testid="pdf-pages-changed">
          {t('docDiff.pdf.pagesChanged', { pages: diff.pages_changed.join(', ') })}
        </p>
      )}
      {diff.page_count.before !== diff.page_count.after && (
        <p className="docdiff-note">
          {t('docDiff.pdf.pageCount', { before: diff.page_count.before, after: diff.page_count.after })}
        </p>
      )}
    </>
  )
}
