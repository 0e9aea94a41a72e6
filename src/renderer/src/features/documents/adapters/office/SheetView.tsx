import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import {
  columnName,
  editCell,
  formatAddress,
  listSheets,
  parseAddress,
  parseCellInput,
  readSheet,
  type CellValue,
  type SheetContent,
  type SheetInfo,
} from '../../../../../../shared/office'
import SSF from 'ssf'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeSession } from './session'

const ROW_HEIGHT = 24
const OVERSCAN = 8
/** Room to type past the used range (a demanding user adds a row or a column now and then). */
const EXTRA_ROWS = 50
const EXTRA_COLUMNS = 10

/**
 * XLSX cells in a virtualised WAI-ARIA grid with sheet tabs. Only the rows in view are in the
 * DOM. A cell edit goes through the shared patcher (that `<c>` only, cached formula results
 * dropped, full recalculation on load), so charts, images and comments stay byte-identical.
 */
export function SheetView(props: { session: OfficeSession; readOnly: boolean }) {
  const { t } = useI18n()
  const { session } = props
  const bytes = useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.bytes,
  )
  const [sheets, setSheets] = useState<SheetInfo[] | null>(null)
  const [active, setActive] = useState<string | null>(null)
  const [content, setContent] = useState<SheetContent | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  const [selected, setSelected] = useState({ column: 1, row: 1 })
  const [draft, setDraft] = useState<string | null>(null)
  const [refusal, setRefusal] = useState<string | null>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [viewport, setViewport] = useState(600)
  const scroller = useRef<HTMLDivElement>(null)
  const editor = useRef<HTMLInputElement>(null)

  useEffect(() => {
    let cancelled = false
    listSheets(bytes).then(
      (list) => {
        if (cancelled) return
        setSheets(list)
        setActive((current) =>
          current !== null && list.some((s) => s.name === current)
            ? current
            : ((list.find((s) => s.state === 'visible') ?? list[0])?.name ?? null),
        )
      },
      (error: unknown) => !cancelled && setFailed(String(error)),
    )
    return () => {
      cancelled = true
    }
  }, [bytes])

  useEffect(() => {
    if (active === null) return
    let cancelled = false
    readSheet(bytes, active).then(
      (sheet) => !cancelled && setContent(sheet),
      (error: unknown) => !cancelled && setFailed(String(error)),
    )
    return () => {
      cancelled = true
    }
  }, [bytes, active])

  const ready = content !== null
  useEffect(() => {
    const element = scroller.current
    if (!element) return
    const observer = new ResizeObserver(() => setViewport(element.clientHeight))
    observer.observe(element)
    return () => observer.disconnect()
  }, [ready])

  const cells = useMemo(() => {
    const map = new Map<string, CellValue>()
    for (const cell of content?.cells ?? []) map.set(cell.address, cell)
    return map
  }, [content])

  const rowCount = Math.max((content?.rows ?? 0) + EXTRA_ROWS, 100)
  const columnCount = Math.min(Math.max((content?.columns ?? 0) + EXTRA_COLUMNS, 26), 16_384)
  const selectedAddress = formatAddress(selected)
  const selectedCell = cells.get(selectedAddress)
  const shownInput = draft ?? inputText(selectedCell)

  /** `fromEditor`: a commit or Escape in the cell editor hands focus back to the grid. */
  const focusCell = useCallback((column: number, row: number, fromEditor = false) => {
    setSelected({ column, row })
    setDraft(null)
    setRefusal(null)
    const element = scroller.current
    if (element) {
      const top = row * ROW_HEIGHT
      if (top < element.scrollTop + ROW_HEIGHT) element.scrollTop = top - ROW_HEIGHT
      else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight)
        element.scrollTop = top + ROW_HEIGHT - element.clientHeight
    }
    // The cell is drawn on the next frame. By then the person may have pressed Enter (or typed)
    // and be in the cell editor: focus is not taken back from it.
    requestAnimationFrame(() => {
      if (!fromEditor && document.activeElement === editor.current) return
      scroller.current?.querySelector<HTMLElement>(`[data-address="${formatAddress({ column, row })}"]`)?.focus()
    })
  }, [])

  const commit = async (text: string, move: 'down' | 'right' | 'none') => {
    if (active === null) return
    const address = selectedAddress
    setDraft(null)
    if (text !== inputText(cells.get(address)) && !props.readOnly) {
      let refused: string | null = null
      await session.edit(async (current) => {
        const outcome = await editCell(current, { sheet: active, address, input: parseCellInput(text) })
        if (outcome.kind === 'refused') {
          refused = t(`office.refused.${outcome.reason}`, { address })
          return null
        }
        return outcome.bytes
      })
      setRefusal(refused)
    }
    const next = parseAddress(address) ?? selected
    focusCell(
      move === 'right' ? next.column + 1 : next.column,
      move === 'down' ? next.row + 1 : next.row,
      move !== 'none',
    )
  }

  // An export (autosave, closing the tab) takes a value still being typed, as leaving the cell would.
  const pending = useRef<(() => void) | null>(null)
  useEffect(() => {
    pending.current = draft === null ? null : () => void commit(draft, 'none')
  })
  useEffect(() => session.onFlush(() => pending.current?.()), [session])

  const onGridKey = (event: React.KeyboardEvent) => {
    const { column, row } = selected
    const moves: Record<string, [number, number]> = {
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      PageDown: [0, Math.floor(viewport / ROW_HEIGHT)],
      PageUp: [0, -Math.floor(viewport / ROW_HEIGHT)],
    }
    const move = moves[event.key]
    if (move) {
      event.preventDefault()
      focusCell(Math.min(columnCount, Math.max(1, column + move[0])), Math.min(rowCount, Math.max(1, row + move[1])))
      return
    }
    if (props.readOnly) return
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault()
      editor.current?.focus()
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault()
      void commit('', 'none')
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      // Typing on a cell starts editing it with that character, as in every spreadsheet.
      event.preventDefault()
      setDraft(event.key)
      editor.current?.focus()
    }
  }

  if (failed !== null) {
    return <ErrorLine className="viewer-note viewer-error" message={`${t('office.corrupt')} ${failed}`} />
  }
  if (!sheets || !content) return <p className="viewer-note">{t('office.reading')}</p>

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN)
  const last = Math.min(rowCount, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN)
  const rows = []
  for (let row = first + 1; row <= last; row++) {
    const rendered = []
    for (let column = 1; column <= columnCount; column++) {
      const address = formatAddress({ column, row })
      const cell = cells.get(address)
      const isSelected = column === selected.column && row === selected.row
      rendered.push(
        <div
          key={column}
          role="gridcell"
          aria-colindex={column + 1}
          aria-label={address}
          aria-description={cell ? shownText(cell, content?.date1904 ?? false) : undefined}
          aria-selected={isSelected}
          aria-readonly={props.readOnly || undefined}
          tabIndex={isSelected ? 0 : -1}
          data-address={address}
          className={`sheet-cell${isSelected ? ' sheet-cell-selected' : ''}${cell && /^-?[\d.]/.test(cell.text) ? ' sheet-cell-number' : ''}`}
          onClick={() => focusCell(column, row)}
          onDoubleClick={() => !props.readOnly && editor.current?.focus()}
          title={cell && cell.text === '' && cell.formula !== undefined ? t('office.formulaPending') : undefined}
        >
          {cell ? shownText(cell, content?.date1904 ?? false) : ''}
        </div>,
      )
    }
    rows.push(
      <div
        key={row}
        role="row"
        aria-rowindex={row + 1}
        className="sheet-row"
        style={{ transform: `translateY(${row * ROW_HEIGHT}px)` }}
      >
        <div role="rowheader" className="sheet-row-header">
          {row}
        </div>
        {rendered}
      </div>,
    )
  }

  return (
    <div className="sheet-view" data-testid="office-sheet">
      <div className="sheet-formula-bar">
        <span className="sheet-address" data-testid="sheet-address">
          {selectedAddress}
        </span>
        <input
          ref={editor}
          className="sheet-editor"
          aria-label={t('office.cellValue')}
          value={shownInput}
          readOnly={props.readOnly}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === 'Tab') {
              event.preventDefault()
              void commit(event.currentTarget.value, event.key === 'Enter' ? 'down' : 'right')
            } else if (event.key === 'Escape') {
              event.preventDefault()
              focusCell(selected.column, selected.row, true)
            }
          }}
          onBlur={(event) => {
            if (draft !== null && !event.relatedTarget?.closest('.sheet-editor')) void commit(draft, 'none')
          }}
        />
      </div>
      <ErrorLine className="viewer-note viewer-error" message={refusal} />
      <div
        ref={scroller}
        className="sheet-scroll"
        role="grid"
        aria-label={t('office.sheetGrid', { sheet: active ?? '' })}
        aria-rowcount={rowCount + 1}
        aria-colcount={columnCount + 1}
        aria-readonly={props.readOnly || undefined}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        onKeyDown={onGridKey}
      >
        <div className="sheet-canvas" style={{ height: (rowCount + 1) * ROW_HEIGHT, width: columnCount * 96 + 48 }}>
          <div role="row" aria-rowindex={1} className="sheet-row sheet-header-row">
            <div className="sheet-row-header sheet-corner" />
            {Array.from({ length: columnCount }, (_, i) => (
              <div key={i} role="columnheader" aria-colindex={i + 2} className="sheet-column-header">
                {columnName(i + 1)}
              </div>
            ))}
          </div>
          {rows}
        </div>
      </div>
      <div className="sheet-tabs" role="tablist" aria-label={t('office.sheets')}>
        {sheets
          .filter((sheet) => sheet.state === 'visible')
          .map((sheet) => (
            <button
              key={sheet.name}
              type="button"
              role="tab"
              aria-selected={sheet.name === active}
              onClick={() => {
                setActive(sheet.name)
                setSelected({ column: 1, row: 1 })
                setDraft(null)
              }}
            >
              {sheet.name}
            </button>
          ))}
      </div>
    </div>
  )
}

/**
 * The built-in short date formats (14, 22) follow the reader's system settings in Excel, so a file
 * says nothing about day/month order; they are shown as ISO dates here, unambiguous in any locale.
 */
const ISO_BUILT_IN: Readonly<Record<number, string>> = { 14: 'yyyy-mm-dd', 22: 'yyyy-mm-dd h:mm' }

/**
 * What the grid shows: the cached value in its number format (dates, percentages, decimals, with
 * SheetJS's format engine), or the formula when its result was dropped for recalculation.
 */
function shownText(cell: CellValue, date1904: boolean): string {
  if (cell.text === '' && cell.formula !== undefined) return `=${cell.formula}`
  const value = Number(cell.text)
  if (cell.numberFormat === undefined || cell.text.trim() === '' || !Number.isFinite(value)) return cell.text
  const format =
    typeof cell.numberFormat === 'number' ? (ISO_BUILT_IN[cell.numberFormat] ?? cell.numberFormat) : cell.numberFormat
  try {
    return SSF.format(format, value, { date1904 })
  } catch {
    return cell.text
  }
}

/** What the cell editor shows: a formula as typed, else the value. */
function inputText(cell: CellValue | undefined): string {
  if (!cell) return ''
  return cell.formula !== undefined ? `=${cell.formula}` : cell.text
}
