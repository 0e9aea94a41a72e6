import { localName, relationshipsOf } from './opc'
import {
  MAIN_NS,
  cellNumberFormats,
  cellsOf,
  columnName,
  openWorkbook,
  parseRange,
  rowsOf,
  type Range,
  type Workbook,
} from './xlsx'
import { attributesAt, children, findFirst, findAll, prefixFor, type XmlElement } from './xml'
import { PackageError } from './zip'

/**
 * How a sheet looks, for the grid (issue 27): each cell style's font, fill, borders, alignment and
 * number format from `styles.xml` (`cellXfs`), column widths and row heights, the frozen pane and
 * the merged ranges. Read-only: nothing here writes a part.
 */

export interface CellBorder {
  readonly style: string
  readonly color: string | undefined
}

export interface CellLook {
  readonly bold?: boolean
  readonly italic?: boolean
  readonly underline?: boolean
  readonly strike?: boolean
  /** `#rrggbb`. */
  readonly color?: string
  /** Points. */
  readonly fontSize?: number
  readonly fontName?: string
  /** `#rrggbb` of a solid fill (pattern fills are drawn with their foreground colour). */
  readonly fill?: string
  readonly top?: CellBorder
  readonly right?: CellBorder
  readonly bottom?: CellBorder
  readonly left?: CellBorder
  readonly horizontal?: string
  readonly vertical?: string
  readonly wrap?: boolean
  readonly numberFormat?: string | number
}

export interface SheetLook {
  /** By `cellXfs` index (a cell's `s`). */
  readonly styles: readonly CellLook[]
  /** Style index of each styled cell, by address (`B3`). */
  readonly cellStyles: ReadonlyMap<string, number>
  /** Cells whose stored value is a number (drawn right-aligned unless their style says otherwise). */
  readonly numericCells: ReadonlySet<string>
  /** Pixels, by 1-based column; columns not listed are `defaultColumnWidth` wide. */
  readonly columnWidths: ReadonlyMap<number, number>
  readonly defaultColumnWidth: number
  /** Pixels, by 1-based row. */
  readonly rowHeights: ReadonlyMap<number, number>
  readonly defaultRowHeight: number
  readonly hiddenColumns: ReadonlySet<number>
  readonly hiddenRows: ReadonlySet<number>
  /** Rows above and columns left of the frozen split (0: none). */
  readonly frozen: { readonly rows: number; readonly columns: number }
  readonly merges: readonly Range[]
}

/** Excel's maximum digit width of Calibri 11 at 96 dpi: column widths are counted in it. */
const DIGIT_WIDTH = 7
/** Widths past this are a hostile or broken file, not a layout: clamp (Excel's maximum is 255 characters). */
const MAX_COLUMN_PIXELS = 255 * DIGIT_WIDTH + 5
const MAX_ROW_PIXELS = 409 * (4 / 3)

/** Excel's conversion of a stored column width (characters, padding included) to pixels. */
export function columnWidthPixels(width: number): number {
  const pixels = Math.trunc(((256 * width + Math.trunc(128 / DIGIT_WIDTH)) / 256) * DIGIT_WIDTH)
  return Math.max(0, Math.min(MAX_COLUMN_PIXELS, pixels))
}

export function pointsToPixels(points: number): number {
  return Math.max(0, Math.min(MAX_ROW_PIXELS, Math.round((points * 4) / 3)))
}

/** The workbook's style table: the same for every sheet of a workbook. */
export async function readCellLooks(book: Workbook): Promise<CellLook[]> {
  const rel = (await relationshipsOf(book.pkg, book.part)).find((r) => r.type === 'styles')
  const xml = rel ? await book.pkg.textOrNull(rel.target) : null
  if (xml === null) return []
  const formats = await cellNumberFormats(book)
  const palette = await themePalette(book)
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const indexed = indexedPalette(xml, p)
  const colorOf = (element: XmlElement | undefined): string | undefined =>
    element ? resolveColor(attributesAt(xml, element.start), palette, indexed) : undefined
  const childNamed = (parent: XmlElement, name: string) => children(xml, parent).find((c) => localName(c.name) === name)
  const listOf = (name: string, item: string) => {
    const list = findFirst(xml, `${p}${name}`)
    return list ? children(xml, list).filter((c) => localName(c.name) === item) : []
  }

  const fonts = listOf('fonts', 'font').map((font) => {
    const on = (name: string) => {
      const element = childNamed(font, name)
      if (!element) return false
      const value = attributesAt(xml, element.start).get('val')
      return value === undefined || value === '1' || value === 'true' || (name === 'u' && value !== 'none')
    }
    const size = Number(attributesAt(xml, childNamed(font, 'sz')?.start ?? -1).get('val'))
    const name = childNamed(font, 'name')
    const look: CellLook = {
      ...(on('b') ? { bold: true } : {}),
      ...(on('i') ? { italic: true } : {}),
      ...(on('u') ? { underline: true } : {}),
      ...(on('strike') ? { strike: true } : {}),
      ...(Number.isFinite(size) && size > 0 && size < 410 ? { fontSize: size } : {}),
      ...(name ? { fontName: attributesAt(xml, name.start).get('val') } : {}),
    }
    const color = colorOf(childNamed(font, 'color'))
    return color !== undefined ? { ...look, color } : look
  })
  const fills = listOf('fills', 'fill').map((fill): string | undefined => {
    const pattern = childNamed(fill, 'patternFill')
    if (!pattern) return undefined
    const type = attributesAt(xml, pattern.start).get('patternType') ?? 'none'
    if (type === 'none' || type === 'gray125') return undefined
    return colorOf(childNamed(pattern, 'fgColor')) ?? colorOf(childNamed(pattern, 'bgColor'))
  })
  const borders = listOf('borders', 'border').map((border) => {
    const side = (name: string): CellBorder | undefined => {
      const element = childNamed(border, name)
      const style = element ? attributesAt(xml, element.start).get('style') : undefined
      if (!element || style === undefined || style === 'none') return undefined
      return { style, color: colorOf(childNamed(element, 'color')) }
    }
    return { top: side('top'), right: side('right'), bottom: side('bottom'), left: side('left') }
  })

  return listOf('cellXfs', 'xf').map((xf, index) => {
    const attributes = attributesAt(xml, xf.start)
    const font = fonts[Number(attributes.get('fontId') ?? 0)] ?? {}
    const fill = fills[Number(attributes.get('fillId') ?? 0)]
    const border = borders[Number(attributes.get('borderId') ?? 0)]
    const alignment = childNamed(xf, 'alignment')
    const align = alignment ? attributesAt(xml, alignment.start) : new Map<string, string>()
    const numberFormat = formats[index]
    const look: Record<string, unknown> = { ...font }
    if (fill !== undefined) look.fill = fill
    for (const side of ['top', 'right', 'bottom', 'left'] as const) if (border?.[side]) look[side] = border[side]
    const horizontal = align.get('horizontal')
    if (horizontal !== undefined && horizontal !== 'general') look.horizontal = horizontal
    const vertical = align.get('vertical')
    if (vertical !== undefined) look.vertical = vertical
    if (align.get('wrapText') === '1' || align.get('wrapText') === 'true') look.wrap = true
    if (numberFormat !== undefined) look.numberFormat = numberFormat
    return look as CellLook
  })
}

/** One sheet's look: see `SheetLook`. */
export async function readSheetLook(bytes: Uint8Array, sheetName: string): Promise<SheetLook> {
  const book = await openWorkbook(bytes)
  const sheet = book.sheets.find((s) => s.name === sheetName)
  if (!sheet) throw new PackageError('missing-part', `There is no sheet "${sheetName}".`)
  const styles = await readCellLooks(book)
  const xml = await book.pkg.text(sheet.part)
  const p = prefixFor(xml, MAIN_NS) ?? ''

  const format = findFirst(xml, `${p}sheetFormatPr`)
  const formatAttributes = format ? attributesAt(xml, format.start) : new Map<string, string>()
  const defaultWidth = Number(formatAttributes.get('defaultColWidth'))
  const baseWidth = Number(formatAttributes.get('baseColWidth'))
  const defaultColumnWidth = Number.isFinite(defaultWidth)
    ? columnWidthPixels(defaultWidth)
    : Number.isFinite(baseWidth)
      ? columnWidthPixels(baseWidth) + 5
      : 64
  const defaultHeight = Number(formatAttributes.get('defaultRowHeight'))
  const defaultRowHeight = Number.isFinite(defaultHeight) && defaultHeight > 0 ? pointsToPixels(defaultHeight) : 20

  const columnWidths = new Map<number, number>()
  const hiddenColumns = new Set<number>()
  const cols = findFirst(xml, `${p}cols`)
  for (const col of cols ? children(xml, cols) : []) {
    const attributes = attributesAt(xml, col.start)
    const min = Number(attributes.get('min'))
    const max = Math.min(Number(attributes.get('max')), 16_384)
    const width = Number(attributes.get('width'))
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min) continue
    const hidden = /^(1|true)$/.test(attributes.get('hidden') ?? '')
    // A `<col>` over the whole sheet (1–16384) only sets a default: no per-column entries for it.
    if (max - min > 1_000) continue
    for (let column = min; column <= max; column++) {
      if (hidden) hiddenColumns.add(column)
      else if (Number.isFinite(width)) columnWidths.set(column, columnWidthPixels(width))
    }
  }

  const rowHeights = new Map<number, number>()
  const hiddenRows = new Set<number>()
  const cellStyles = new Map<string, number>()
  const numericCells = new Set<string>()
  const data = findFirst(xml, `${p}sheetData`)
  if (data) {
    for (const row of rowsOf(xml, data, p)) {
      const attributes = attributesAt(xml, row.element.start)
      if (/^(1|true)$/.test(attributes.get('hidden') ?? '')) hiddenRows.add(row.row)
      const height = Number(attributes.get('ht'))
      if (/^(1|true)$/.test(attributes.get('customHeight') ?? '') || Number.isFinite(height)) {
        if (Number.isFinite(height) && height >= 0) rowHeights.set(row.row, pointsToPixels(height))
      }
      for (const cell of cellsOf(xml, row, p)) {
        const cellAttributes = attributesAt(xml, cell.element.start)
        const address = `${columnName(cell.column)}${cell.row}`
        const style = Number(cellAttributes.get('s') ?? 0)
        if (Number.isInteger(style) && style > 0) cellStyles.set(address, style)
        const type = cellAttributes.get('t') ?? 'n'
        if (type === 'n' && !cell.element.empty) numericCells.add(address)
      }
    }
  }

  let frozen = { rows: 0, columns: 0 }
  const pane = findFirst(xml, `${p}pane`)
  if (pane) {
    const attributes = attributesAt(xml, pane.start)
    const state = attributes.get('state')
    if (state === 'frozen' || state === 'frozenSplit') {
      const rows = Number(attributes.get('ySplit') ?? 0)
      const columns = Number(attributes.get('xSplit') ?? 0)
      // A frozen block taller than a screen is not a header: a bound keeps the grid scrollable.
      frozen = {
        rows: Number.isInteger(rows) && rows > 0 ? Math.min(rows, 50) : 0,
        columns: Number.isInteger(columns) && columns > 0 ? Math.min(columns, 20) : 0,
      }
    }
  }
  const merges = findAll(xml, `${p}mergeCell`).flatMap((m) => {
    const range = parseRange(attributesAt(xml, m.start).get('ref') ?? '')
    return range ? [range] : []
  })
  return {
    styles,
    cellStyles,
    numericCells,
    columnWidths,
    defaultColumnWidth,
    rowHeights,
    defaultRowHeight,
    hiddenColumns,
    hiddenRows,
    frozen,
    merges,
  }
}

/** Excel's theme colour order: the first two pairs are swapped against the theme's `clrScheme`. */
const THEME_ORDER = [
  'lt1',
  'dk1',
  'lt2',
  'dk2',
  'accent1',
  'accent2',
  'accent3',
  'accent4',
  'accent5',
  'accent6',
  'hlink',
  'folHlink',
]

async function themePalette(book: Workbook): Promise<string[]> {
  const rel = (await relationshipsOf(book.pkg, book.part)).find((r) => r.type === 'theme')
  const xml = rel ? await book.pkg.textOrNull(rel.target) : null
  if (xml === null) return []
  const scheme = findAll(xml, 'a:clrScheme')[0]
  if (!scheme) return []
  const byName = new Map<string, string>()
  for (const entry of children(xml, scheme)) {
    const value = children(xml, entry)[0]
    if (!value) continue
    const attributes = attributesAt(xml, value.start)
    const rgb = localName(value.name) === 'sysClr' ? attributes.get('lastClr') : attributes.get('val')
    if (rgb !== undefined && /^[0-9a-fA-F]{6}$/.test(rgb)) byName.set(localName(entry.name), `#${rgb.toLowerCase()}`)
  }
  return THEME_ORDER.map((name) => byName.get(name) ?? '')
}

/** The legacy 64-colour palette `indexed` colours point into (a workbook may override it). */
const DEFAULT_INDEXED = (
  '000000 FFFFFF FF0000 00FF00 0000FF FFFF00 FF00FF 00FFFF 000000 FFFFFF FF0000 00FF00 0000FF FFFF00 FF00FF 00FFFF ' +
  '800000 008000 000080 808000 800080 008080 C0C0C0 808080 9999FF 993366 FFFFCC CCFFFF 660066 FF8080 0066CC CCCCFF ' +
  '000080 FF00FF FFFF00 00FFFF 800080 800000 008080 0000FF 00CCFF CCFFFF CCFFCC FFFF99 99CCFF FF99CC CC99FF FFCC99 ' +
  '3366FF 33CCCC 99CC00 FFCC00 FF9900 FF6600 666699 969696 003366 339966 003300 333300 993300 993366 333399 333333'
).split(' ')

function indexedPalette(xml: string, p: string): string[] {
  const custom = findFirst(xml, `${p}indexedColors`)
  if (!custom) return DEFAULT_INDEXED
  const colors = children(xml, custom).map((c) => (attributesAt(xml, c.start).get('rgb') ?? '').slice(-6))
  return colors.length > 0 ? colors : DEFAULT_INDEXED
}

function resolveColor(
  attributes: Map<string, string>,
  theme: readonly string[],
  indexed: readonly string[],
): string | undefined {
  let base: string | undefined
  const rgb = attributes.get('rgb')
  if (rgb !== undefined && /^[0-9a-fA-F]{6,8}$/.test(rgb)) base = `#${rgb.slice(-6).toLowerCase()}`
  else if (attributes.has('theme')) base = theme[Number(attributes.get('theme'))] || undefined
  else if (attributes.has('indexed')) {
    const index = Number(attributes.get('indexed'))
    // 64 and 65 are "system foreground/background": the default text colour and no fill.
    const hex = index < 64 ? indexed[index] : undefined
    base = hex !== undefined && /^[0-9a-fA-F]{6}$/.test(hex) ? `#${hex.toLowerCase()}` : undefined
  }
  if (base === undefined) return undefined
  const tint = Number(attributes.get('tint') ?? 0)
  return Number.isFinite(tint) && tint !== 0 ? withTint(base, tint) : base
}

/** Excel's tint: towards white for a positive tint, towards black for a negative one (in HSL lightness). */
function withTint(hex: string, tint: number): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number]
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  let l = (max + min) / 2
  const d = max - min
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1))
  let h = 0
  if (d !== 0) {
    if (max === r) h = ((g - b) / d) % 6
    else if (max === g) h = (b - r) / d + 2
    else h = (r - g) / d + 4
    h *= 60
    if (h < 0) h += 360
  }
  l = tint < 0 ? l * (1 + tint) : l * (1 - tint) + tint
  const c = (1 - Math.abs(2 * l - 1)) * s
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1))
  const m = l - c / 2
  const [r1, g1, b1] =
    h < 60
      ? [c, x, 0]
      : h < 120
        ? [x, c, 0]
        : h < 180
          ? [0, c, x]
          : h < 240
            ? [0, x, c]
            : h < 300
              ? [x, 0, c]
              : [c, 0, x]
  const hexOf = (v: number) =>
    Math.round(Math.max(0, Math.min(1, v + m)) * 255)
      .toString(16)
      .padStart(2, '0')
  return `#${hexOf(r1)}${hexOf(g1)}${hexOf(b1)}`
}
