import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core'
import { textAdapter } from '../text'
import { createEmitter, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'
import { parseTable, type Table } from './parse'
import './csv.css'

const ROW_HEIGHT = 26
const textOf = (content: DocumentContent) =>
  content.kind === 'text' ? content.text : new TextDecoder().decode(content.bytes)

/**
 * CSV/TSV (spec 09): a virtualised table (only the rows in view exist in the DOM, so 100 000 rows
 * scroll like ten) and the text itself in Monaco, where editing autosaves like any text file.
 */
export const csvAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const root = document.createElement('div')
    root.className = 'csv-doc'
    const bar = document.createElement('div')
    bar.className = 'csv-bar'
    bar.setAttribute('role', 'group')
    bar.setAttribute('aria-label', options.labels?.view ?? 'CSV view')
    const summary = document.createElement('span')
    summary.className = 'csv-summary'
    const grid = document.createElement('div')
    grid.className = 'csv-grid'
    grid.tabIndex = 0
    grid.dataset.testid = 'csv-grid'
    grid.setAttribute('role', 'grid')
    grid.setAttribute('aria-label', options.labels?.grid ?? options.path)
    const spacer = document.createElement('div')
    spacer.className = 'csv-spacer'
    grid.append(spacer)
    const sourcePane = document.createElement('div')
    sourcePane.className = 'csv-source'
    root.append(bar, grid, sourcePane)
    container.append(root)

    const buttons = new Map<string, HTMLButtonElement>()
    const setMode = (mode: 'table' | 'source') => {
      root.dataset.mode = mode
      for (const [m, button] of buttons) button.setAttribute('aria-pressed', String(m === mode))
      if (mode === 'table') virtualizer.measure()
    }
    for (const [m, label] of [
      ['table', options.labels?.table ?? 'Table'],
      ['source', options.labels?.source ?? 'Text'],
    ] as const) {
      const button = document.createElement('button')
      button.type = 'button'
      button.textContent = label
      button.dataset.testid = `csv-mode-${m}`
      button.addEventListener('click', () => setMode(m))
      buttons.set(m, button)
      bar.append(button)
    }
    bar.append(summary)

    let table: Table = parseTable(textOf(options.content), options.path)
    const rowsShown = new Map<number, HTMLDivElement>()
    const renderRows = () => {
      const items = virtualizer.getVirtualItems()
      spacer.style.height = `${virtualizer.getTotalSize()}px`
      const wanted = new Set(items.map((item) => item.index))
      for (const [index, element] of rowsShown) {
        if (!wanted.has(index)) {
          element.remove()
          rowsShown.delete(index)
        }
      }
      for (const item of items) {
        let row = rowsShown.get(item.index)
        if (!row) {
          row = document.createElement('div')
          row.className = item.index === 0 ? 'csv-row csv-head' : 'csv-row'
          row.setAttribute('role', 'row')
          row.setAttribute('aria-rowindex', String(item.index + 1))
          row.dataset.row = String(item.index)
          const number = document.createElement('span')
          number.className = 'csv-number'
          number.textContent = String(item.index + 1)
          row.append(number)
          for (const value of table.rows[item.index] ?? []) {
            const cell = document.createElement('span')
            cell.className = 'csv-cell'
            cell.setAttribute('role', item.index === 0 ? 'columnheader' : 'gridcell')
            cell.textContent = value
            cell.title = value
            row.append(cell)
          }
          spacer.append(row)
          rowsShown.set(item.index, row)
        }
        row.style.transform = `translateY(${item.start}px)`
      }
    }
    const virtualizer = new Virtualizer<HTMLDivElement, HTMLDivElement>({
      count: table.rows.length,
      getScrollElement: () => grid,
      estimateSize: () => ROW_HEIGHT,
      overscan: 12,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: renderRows,
    })
    const cleanup = virtualizer._didMount()
    virtualizer._willUpdate()
    const showTable = (next: Table) => {
      table = next
      for (const element of rowsShown.values()) element.remove()
      rowsShown.clear()
      grid.style.setProperty('--csv-columns', String(Math.max(1, table.columns)))
      summary.textContent = (options.labels?.rows ?? '{rows} rows · {columns} columns')
        .replace('{rows}', String(table.rows.length))
        .replace('{columns}', String(table.columns))
      virtualizer.setOptions({ ...virtualizer.options, count: table.rows.length })
      virtualizer.measure()
      renderRows()
    }
    showTable(table)
    setMode(options.size === 'compact' || options.readOnly ? 'table' : 'table')

    const source = await textAdapter.mount(sourcePane, options)
    let timer: ReturnType<typeof setTimeout> | undefined
    source.on('changed', (payload) => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => showTable(parseTable(source.currentText?.() ?? '', options.path)), 300)
      events.emit('changed', payload)
    })

    return {
      on: events.on,
      update(content, revision) {
        source.update(content, revision)
        showTable(parseTable(textOf(content), options.path))
      },
      viewState: () => source.viewState(),
      setDark: (dark) => source.setDark(dark),
      currentText: () => source.currentText?.() ?? '',
      setReadOnly: (readOnly) => source.setReadOnly?.(readOnly),
      export: () => source.export(),
      destroy() {
        if (timer) clearTimeout(timer)
        cleanup()
        source.destroy()
        root.remove()
      },
    }
  },
}
