import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import {
  columnName,
  editXlsx,
  editXlsxStructure,
  formatAddress,
  listSheets,
  parseAddress,
  readSheet,
  readSheetLook,
  type CellValue,
  type SheetContent,
  type SheetInfo,
  type SheetLook,
} from '../../../../../../shared/office'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeSession } from './session'
import { Axis } from './sheet/geometry'
import { cellStyle, type ValueKind } from './sheet/look'
import { StructureMenu } from './sheet/StructureMenu'
import { blockOf, blockTexts, inputText, shownText, type Block, type Selection } from './sheet/cells'
import { fromTsv, MAX_PASTE_CHARS, toTsv } from './sheet/tsv'

const HEADER_HEIGHT = 24
const ROW_HEADER_WIDTH = 48
/** Pixels drawn beyond the screen on each side, so a short scroll shows no blank band. */
const OVERSCAN_PIXELS = 400
/** Room to type past the used range (a demanding user adds a row or a column now and then). */
const EXTRA_ROWS = 50
const EXTRA_COLUMNS = 10
/** Cells one copy may put on the clipboard (a whole-sheet selection of a huge sheet is not a copy). */
const MAX_COPY_CELLS = 100_000
/** Merge-by-row index entries built for one sheet (see `mergesByRow`). */
const MAX_MERGE_ROWS = 200_000

type Merge = Block

/**
 * XLSX cells in a virtualised WAI-ARIA grid with sheet tabs, drawn as the spreadsheet app draws
 * them: values of formulas (the cached results; recalculated on every edit), merged cells as one,
 * column widths, row heights, fonts, fills, borders, alignment and number formats from the
 * workbook's styles, frozen rows and columns. Only the rows and columns in view are in the DOM.
 * An edit goes through the shared `set_cells` patcher, which recalculates the dependent formulas
 * and writes their cached values, so every reader shows correct totals; charts, images and
 * comments stay byte-identical.
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
  const [content, setContent] = useState<{ sheet: SheetContent; look: SheetLook } | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  const [selected, setSelected] = useState<Selection>({ column: 1, row: 1 })
  /** The other corner of a selected block (Shift+arrows, Shift+click); null: one cell. */
  const [extent, setExtent] = useState<Selection | null>(null)
  const [draft, setDraft] = useState<string | null>(null)
  const [refusal, setRefusal] = useState<string | null>(null)
  const [scroll, setScroll] = useState({ top: 0, left: 0 })
  const [viewport, setViewport] = useState({ width: 1000, height: 600 })
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
    Promise.all([readSheet(bytes, active), readSheetLook(bytes, active)]).then(
      ([sheet, look]) => !cancelled && setContent({ sheet, look }),
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
    const observer = new ResizeObserver(() => setViewport({ width: element.clientWidth, height: element.clientHeight }))
    observer.observe(element)
    return () => observer.disconnect()
  }, [ready])

  const cells = useMemo(() => {
    const map = new Map<string, CellValue>()
    for (const cell of content?.sheet.cells ?? []) map.set(cell.address, cell)
    return map
  }, [content])

  const look = content?.look
  const rowCount = Math.min(Math.max((content?.sheet.rows ?? 0) + EXTRA_ROWS, 100), 1_048_576)
  const columnCount = Math.min(Math.max((content?.sheet.columns ?? 0) + EXTRA_COLUMNS, 26), 16_384)
  const rows = useMemo(
    () =>
      new Axis(rowCount, (row) =>
        look?.hiddenRows.has(row) ? 0 : (look?.rowHeights.get(row) ?? look?.defaultRowHeight ?? 20),
      ),
    [rowCount, look],
  )
  const columns = useMemo(
    () =>
      new Axis(columnCount, (column) =>
        look?.hiddenColumns.has(column) ? 0 : (look?.columnWidths.get(column) ?? look?.defaultColumnWidth ?? 64),
      ),
    [columnCount, look],
  )
  /** Merges by each row they cover: a cell's merge in one lookup, whatever the number of merges. */
  const mergesByRow = useMemo(() => {
    const map = new Map<number, Merge[]>()
    // Bounded work per file, whatever its merges: a merge over thousands of rows is indexed on its
    // first rows only, and indexing stops at MAX_MERGE_ROWS entries (later merges draw as cells).
    let budget = MAX_MERGE_ROWS
    for (const merge of look?.merges ?? []) {
      const last = Math.min(merge.to.row, merge.from.row + 5_000, merge.from.row + budget - 1)
      budget -= last - merge.from.row + 1
      if (budget < 0) break
      for (let row = merge.from.row; row <= last; row++) {
        const list = map.get(row) ?? []
        list.push(merge)
        map.set(row, list)
      }
    }
    return map
  }, [look])
  const mergeAt = useCallback(
    (column: number, row: number): Merge | undefined =>
      mergesByRow.get(row)?.find((m) => column >= m.from.column && column <= m.to.column),
    [mergesByRow],
  )

  const frozenRows = Math.min(look?.frozen.rows ?? 0, rowCount)
  const frozenColumns = Math.min(look?.frozen.columns ?? 0, columnCount)
  const selectedAddress = formatAddress(selected)
  const selectedCell = cells.get(selectedAddress)
  const shownInput = draft ?? inputText(selectedCell)
  const block = blockOf(selected, extent)

  /**
   * `fromEditor`: a commit or Escape in the cell editor hands focus back to the grid. A cell
   * inside a merge selects the merge, whose top-left cell holds its value: typing on any part of
   * a merge edits the merge.
   */
  const focusCell = useCallback(
    (column: number, row: number, options: { fromEditor?: boolean; extend?: boolean } = {}) => {
      const merge = mergeAt(column, row)
      const target = options.extend ? { column, row } : (merge?.from ?? { column, row })
      if (options.extend) {
        setExtent(target)
      } else {
        setSelected(target)
        setExtent(null)
      }
      setDraft(null)
      const element = scroller.current
      if (element) {
        const top = rows.start(target.row)
        const bottom = top + rows.size(target.row)
        const frozenHeight = rows.start(frozenRows + 1)
        const visibleTop = element.scrollTop + frozenHeight
        const visibleBottom = element.scrollTop + element.clientHeight - HEADER_HEIGHT
        if (target.row > frozenRows) {
          if (top < visibleTop) element.scrollTop = top - frozenHeight
          else if (bottom > visibleBottom) element.scrollTop = bottom - element.clientHeight + HEADER_HEIGHT
        }
        const left = columns.start(target.column)
        const right = left + columns.size(target.column)
        const frozenWidth = columns.start(frozenColumns + 1)
        if (target.column > frozenColumns) {
          if (left < element.scrollLeft + frozenWidth) element.scrollLeft = left - frozenWidth
          else if (right > element.scrollLeft + element.clientWidth - ROW_HEADER_WIDTH)
            element.scrollLeft = right - element.clientWidth + ROW_HEADER_WIDTH
        }
      }
      // The cell is drawn on the next frame. By then the person may have pressed Enter (or typed)
      // and be in the cell editor: focus is not taken back from it.
      requestAnimationFrame(() => {
        if (!options.fromEditor && document.activeElement === editor.current) return
        const focus = options.extend ? undefined : formatAddress(target)
        if (focus === undefined) return
        scroller.current?.querySelector<HTMLElement>(`[data-address="${focus}"]`)?.focus()
      })
    },
    [mergeAt, rows, columns, frozenRows, frozenColumns],
  )

  /** One `set_cells` save: dependents recalculated, cached values written; a refusal stays shown until the next edit. */
  const save = async (address: string, values: Array<Array<string | null>>): Promise<void> => {
    if (active === null || props.readOnly) return
    const last = parseAddress(address)
    if (!last) return
    const range =
      values.length === 1 && values[0]?.length === 1
        ? address
        : `${address}:${formatAddress({ column: last.column + (values[0]?.length ?? 1) - 1, row: last.row + values.length - 1 })}`
    let refused: string | null = null
    await session.edit(async (current) => {
      const outcome = await editXlsx(current, [{ op: 'set_cells', sheet: active, range, values }])
      if (outcome.kind === 'refused') {
        refused = t('office.sheetRefused', { address: range, reason: outcome.message })
        return null
      }
      return outcome.bytes
    })
    setRefusal(refused)
  }

  const commit = async (text: string, move: 'down' | 'right' | 'none') => {
    if (active === null) return
    const address = selectedAddress
    const origin = selected
    setDraft(null)
    if (text !== inputText(cells.get(address)) && !props.readOnly) {
      await save(address, [[text === '' ? null : text]])
    }
    const merge = mergeAt(origin.column, origin.row)
    const end = merge?.to ?? origin
    focusCell(move === 'right' ? end.column + 1 : origin.column, move === 'down' ? end.row + 1 : origin.row, {
      fromEditor: move !== 'none',
    })
  }

  /**
   * Inserts or deletes as many whole rows or columns as the selection spans (Excel's rule), through
   * the shared patcher that moves every reference with them; a refusal says why and changes nothing.
   */
  const restructure = async (axis: 'row' | 'column', change: 'insert-before' | 'insert-after' | 'delete') => {
    if (active === null || props.readOnly) return
    const from = axis === 'row' ? block.from.row : block.from.column
    const to = axis === 'row' ? block.to.row : block.to.column
    const span = to - from + 1
    const at = change === 'insert-after' ? to + 1 : from
    const count = change === 'delete' ? -span : span
    let refused: string | null = null
    await session.edit(async (current) => {
      const outcome = await editXlsxStructure(current, { sheet: active, axis, at, count })
      if (outcome.kind === 'refused') {
        refused = t('office.sheetStructureRefused', { reason: outcome.message })
        return null
      }
      return outcome.bytes
    })
    setRefusal(refused)
  }

  // An export (autosave, closing the tab) takes a value still being typed, as leaving the cell would.
  const pending = useRef<(() => void) | null>(null)
  useEffect(() => {
    pending.current = draft === null ? null : () => void commit(draft, 'none')
  })
  useEffect(() => session.onFlush(() => pending.current?.()), [session])

  const onGridKey = (event: React.KeyboardEvent) => {
    const from = event.shiftKey ? (extent ?? selected) : selected
    const pageRows = Math.max(1, Math.floor(viewport.height / (look?.defaultRowHeight ?? 20)))
    const moves: Record<string, [number, number]> = {
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      PageDown: [0, pageRows],
      PageUp: [0, -pageRows],
    }
    const move = moves[event.key]
    if (move) {
      event.preventDefault()
      // Leaving a merge forwards starts from its far edge, as in every spreadsheet.
      const merge = event.shiftKey ? undefined : mergeAt(from.column, from.row)
      const column = move[0] > 0 ? (merge?.to.column ?? from.column) : from.column
      const row = move[1] > 0 ? (merge?.to.row ?? from.row) : from.row
      focusCell(Math.min(columnCount, Math.max(1, column + move[0])), Math.min(rowCount, Math.max(1, row + move[1])), {
        extend: event.shiftKey,
      })
      return
    }
    if (props.readOnly) return
    // Excel's keys: Ctrl+Shift+= (Ctrl++) inserts rows above the selection, Ctrl+- deletes its rows;
    // with Alt, columns.
    if ((event.ctrlKey || event.metaKey) && (event.key === '+' || (event.shiftKey && event.key === '='))) {
      event.preventDefault()
      void restructure(event.altKey ? 'column' : 'row', 'insert-before')
      return
    }
    if ((event.ctrlKey || event.metaKey) && event.key === '-') {
      event.preventDefault()
      void restructure(event.altKey ? 'column' : 'row', 'delete')
      return
    }
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault()
      editor.current?.focus()
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault()
      if (extent) {
        const height = block.to.row - block.from.row + 1
        const width = block.to.column - block.from.column + 1
        if (height * width <= MAX_COPY_CELLS) {
          void save(
            formatAddress(block.from),
            Array.from({ length: height }, () => Array<string | null>(width).fill(null)),
          )
        }
      } else void commit('', 'none')
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      // Typing on a cell starts editing it with that character, as in every spreadsheet.
      event.preventDefault()
      setDraft(event.key)
      editor.current?.focus()
    }
  }

  const onCopy = (event: React.ClipboardEvent) => {
    if (document.activeElement === editor.current || !content) return
    const height = block.to.row - block.from.row + 1
    const width = block.to.column - block.from.column + 1
    if (height * width > MAX_COPY_CELLS) {
      setRefusal(t('office.sheetCopyTooLarge', { count: MAX_COPY_CELLS }))
      event.preventDefault()
      return
    }
    event.clipboardData.setData(
      'text/plain',
      toTsv(blockTexts(block, (address) => cells.get(address), content.sheet.date1904)),
    )
    event.preventDefault()
  }

  const onPaste = (event: React.ClipboardEvent) => {
    if (document.activeElement === editor.current || props.readOnly) return
    const text = event.clipboardData.getData('text/plain')
    event.preventDefault()
    if (text === '') return
    if (text.length > MAX_PASTE_CHARS) {
      setRefusal(t('office.sheetPasteTooLarge'))
      return
    }
    const values = fromTsv(text).map((line) => line.map((value) => (value === '' ? null : value)))
    if (values.length === 0) return
    void save(formatAddress(selected), values)
  }

  if (failed !== null) {
    return <ErrorLine className="viewer-note viewer-error" message={`${t('office.corrupt')} ${failed}`} />
  }
  if (!sheets || !content || !look) return <p className="viewer-note">{t('office.reading')}</p>

  const date1904 = content.sheet.date1904
  const baseFontSize = look.styles[0]?.fontSize ?? 11
  const frozenHeight = rows.start(frozenRows + 1)
  const frozenWidth = columns.start(frozenColumns + 1)
  const firstRow = Math.max(frozenRows + 1, rows.at(scroll.top + frozenHeight - OVERSCAN_PIXELS))
  const lastRow = Math.min(rowCount, rows.at(scroll.top + viewport.height + OVERSCAN_PIXELS))
  const firstColumn = Math.max(frozenColumns + 1, columns.at(scroll.left + frozenWidth - OVERSCAN_PIXELS))
  const lastColumn = Math.min(columnCount, columns.at(scroll.left + viewport.width + OVERSCAN_PIXELS))

  // A merge whose top-left lies above or left of the drawn window is still drawn whole: its first
  // row and column join the window.
  let drawFromRow = firstRow
  let drawFromColumn = firstColumn
  for (let row = firstRow; row <= lastRow; row++) {
    for (const merge of mergesByRow.get(row) ?? []) {
      if (merge.to.column < firstColumn || merge.from.column > lastColumn) continue
      if (merge.from.row > frozenRows) drawFromRow = Math.min(drawFromRow, merge.from.row)
      if (merge.from.column > frozenColumns) drawFromColumn = Math.min(drawFromColumn, merge.from.column)
    }
  }

  const drawCell = (column: number, row: number, sticky: boolean) => {
    const address = formatAddress({ column, row })
    const merge = mergeAt(column, row)
    const isAnchor = merge !== undefined && merge.from.column === column && merge.from.row === row
    const width = columns.size(column)
    if (merge && !isAnchor) {
      // The cell under a merge is drawn by the merge's top-left (wider and taller than its own
      // cell); below the first row only its place in the row is kept.
      if (row === merge.from.row) return null
      return <div key={column} className="sheet-cell-covered" aria-hidden style={{ width }} />
    }
    const cell = cells.get(address)
    const isSelected = column === selected.column && row === selected.row
    const inBlock =
      extent !== null &&
      column >= block.from.column &&
      column <= block.to.column &&
      row >= block.from.row &&
      row <= block.to.row
    const styleIndex = look.cellStyles.get(address)
    const cellLook = styleIndex === undefined ? undefined : look.styles[styleIndex]
    const kind: ValueKind = !cell
      ? 'text'
      : look.numericCells.has(address) && cell.text !== '' && Number.isFinite(Number(cell.text))
        ? 'number'
        : cell.text === 'TRUE' || cell.text === 'FALSE'
          ? 'boolean'
          : /^#[A-Z0-9/]+[!?]?$/.test(cell.text)
            ? 'error'
            : 'text'
    const notEvaluated = cell !== undefined && cell.formula !== undefined && cell.text === ''
    const shown = cell ? shownText(cell, date1904) : ''
    const style = cellStyle(cellLook, kind, baseFontSize)
    style.width = isAnchor ? columns.span(column, merge.to.column) : width
    if (isAnchor) style.height = rows.span(row, merge.to.row)
    if (sticky) style.left = ROW_HEADER_WIDTH + columns.start(column)
    return (
      <div
        key={column}
        role="gridcell"
        aria-colindex={column + 1}
        aria-colspan={isAnchor ? merge.to.column - column + 1 : undefined}
        aria-rowspan={isAnchor ? merge.to.row - row + 1 : undefined}
        aria-label={isAnchor ? `${address}:${formatAddress(merge.to)}` : address}
        aria-description={shown || undefined}
        aria-selected={isSelected || inBlock}
        aria-readonly={props.readOnly || undefined}
        tabIndex={isSelected ? 0 : -1}
        data-address={address}
        className={[
          'sheet-cell',
          isSelected ? 'sheet-cell-selected' : '',
          inBlock ? 'sheet-cell-in-block' : '',
          isAnchor ? 'sheet-cell-merged' : '',
          sticky ? 'sheet-cell-frozen' : '',
          notEvaluated ? 'sheet-cell-not-evaluated' : '',
        ]
          .filter(Boolean)
          .join(' ')}
        style={style}
        onClick={(event) => focusCell(column, row, { extend: event.shiftKey })}
        onDoubleClick={() => !props.readOnly && editor.current?.focus()}
        title={notEvaluated ? t('office.sheetNotEvaluated') : undefined}
      >
        <span className="sheet-cell-text">{shown}</span>
      </div>
    )
  }

  const drawRow = (row: number, frozen: boolean) => {
    const drawn = []
    for (let column = 1; column <= frozenColumns; column++) drawn.push(drawCell(column, row, true))
    const gap = columns.span(frozenColumns + 1, drawFromColumn - 1)
    if (gap > 0) drawn.push(<div key="gap" className="sheet-gap" aria-hidden style={{ width: gap }} />)
    for (let column = drawFromColumn; column <= lastColumn; column++) drawn.push(drawCell(column, row, false))
    const tall = (mergesByRow.get(row) ?? []).some((m) => m.from.row === row && m.to.row > row)
    return (
      <div
        key={row}
        role="row"
        aria-rowindex={row + 1}
        className={frozen ? 'sheet-row sheet-row-frozen' : 'sheet-row'}
        style={{
          height: rows.size(row),
          ...(frozen ? {} : { transform: `translateY(${HEADER_HEIGHT + rows.start(row)}px)` }),
          // A merge taller than its row spills over the rows below: it is painted above them.
          ...(tall ? { zIndex: 1 } : {}),
        }}
      >
        <div role="rowheader" className="sheet-row-header" style={{ lineHeight: `${rows.size(row)}px` }}>
          {row}
        </div>
        {drawn}
      </div>
    )
  }

  const frozenBlock = []
  for (let row = 1; row <= frozenRows; row++) frozenBlock.push(drawRow(row, true))
  const bodyRows = []
  for (let row = drawFromRow; row <= lastRow; row++) bodyRows.push(drawRow(row, false))
  const columnHeaders = []
  const header = (column: number, sticky: boolean) => (
    <div
      key={column}
      role="columnheader"
      aria-colindex={column + 1}
      className={sticky ? 'sheet-column-header sheet-cell-frozen' : 'sheet-column-header'}
      style={{ width: columns.size(column), ...(sticky ? { left: ROW_HEADER_WIDTH + columns.start(column) } : {}) }}
    >
      {columnName(column)}
    </div>
  )
  for (let column = 1; column <= frozenColumns; column++) columnHeaders.push(header(column, true))
  const headerGap = columns.span(frozenColumns + 1, drawFromColumn - 1)
  if (headerGap > 0)
    columnHeaders.push(<div key="gap" className="sheet-gap" aria-hidden style={{ width: headerGap }} />)
  for (let column = drawFromColumn; column <= lastColumn; column++) columnHeaders.push(header(column, false))

  return (
    <div className="sheet-view" data-testid="office-sheet">
      <div className="sheet-formula-bar">
        <span className="sheet-address" data-testid="sheet-address">
          {extent ? `${formatAddress(block.from)}:${formatAddress(block.to)}` : selectedAddress}
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
              focusCell(selected.column, selected.row, { fromEditor: true })
            }
          }}
          onBlur={(event) => {
            if (draft !== null && !event.relatedTarget?.closest('.sheet-editor')) void commit(draft, 'none')
          }}
        />
        {!props.readOnly && <StructureMenu onChange={(axis, change) => void restructure(axis, change)} />}
      </div>
      <ErrorLine className="viewer-note viewer-error" testId="sheet-refusal" message={refusal} />
      <div
        ref={scroller}
        className="sheet-scroll"
        role="grid"
        aria-label={t('office.sheetGrid', { sheet: active ?? '' })}
        aria-rowcount={rowCount + 1}
        aria-colcount={columnCount + 1}
        aria-readonly={props.readOnly || undefined}
        aria-multiselectable
        style={{ fontSize: `${(baseFontSize * 4) / 3}px` }}
        onScroll={(event) => setScroll({ top: event.currentTarget.scrollTop, left: event.currentTarget.scrollLeft })}
        onKeyDown={onGridKey}
        onCopy={onCopy}
        onPaste={onPaste}
      >
        <div
          className="sheet-canvas"
          style={{ height: HEADER_HEIGHT + rows.total, width: ROW_HEADER_WIDTH + columns.total }}
        >
          <div role="row" aria-rowindex={1} className="sheet-row sheet-header-row" style={{ height: HEADER_HEIGHT }}>
            <div className="sheet-row-header sheet-corner" />
            {columnHeaders}
          </div>
          {frozenRows > 0 && (
            <div className="sheet-frozen-rows" data-testid="sheet-frozen-rows" style={{ height: frozenHeight }}>
              {frozenBlock}
            </div>
          )}
          {bodyRows}
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
                setExtent(null)
                setDraft(null)
                setRefusal(null)
              }}
            >
              {sheet.name}
            </button>
          ))}
      </div>
    </div>
  )
}
