import type { CSSProperties } from 'react'
import type { CellBorder, CellLook } from '../../../../../../../shared/office'

const BORDER_WIDTH: Readonly<Record<string, string>> = {
  thin: '1px solid',
  hair: '1px solid',
  medium: '2px solid',
  thick: '3px solid',
  dashed: '1px dashed',
  mediumDashed: '2px dashed',
  dotted: '1px dotted',
  double: '3px double',
  dashDot: '1px dashed',
  mediumDashDot: '2px dashed',
  dashDotDot: '1px dotted',
  mediumDashDotDot: '2px dotted',
  slantDashDot: '2px dashed',
}

const HORIZONTAL: Readonly<Record<string, CSSProperties['textAlign']>> = {
  left: 'left',
  center: 'center',
  centerContinuous: 'center',
  right: 'right',
  justify: 'justify',
  distributed: 'justify',
  fill: 'left',
}

const VERTICAL: Readonly<Record<string, CSSProperties['alignItems']>> = {
  top: 'flex-start',
  center: 'center',
  justify: 'center',
  distributed: 'center',
  bottom: 'flex-end',
}

function border(side: CellBorder | undefined): string | undefined {
  if (!side) return undefined
  return `${BORDER_WIDTH[side.style] ?? '1px solid'} ${side.color ?? '#000000'}`
}

/** A font name as a CSS family: quotes and backslashes removed, so a hostile name stays one name. */
function family(name: string): string {
  return `"${name.replace(/["\\;]/g, '')}", var(--font-sans, sans-serif)`
}

export type ValueKind = 'number' | 'text' | 'boolean' | 'error'

/**
 * The cell's look as inline styles. Excel's defaults where the style is silent: numbers right,
 * text left, booleans and errors centred; everything at the bottom of the cell.
 */
export function cellStyle(look: CellLook | undefined, kind: ValueKind, baseFontSize: number): CSSProperties {
  const style: CSSProperties = {}
  const horizontal = look?.horizontal
  style.textAlign =
    (horizontal !== undefined ? HORIZONTAL[horizontal] : undefined) ??
    (kind === 'number' ? 'right' : kind === 'text' ? 'left' : 'center')
  style.alignItems = VERTICAL[look?.vertical ?? 'bottom'] ?? 'flex-end'
  if (!look) return style
  if (look.bold) style.fontWeight = 700
  if (look.italic) style.fontStyle = 'italic'
  const lines = [look.underline ? 'underline' : '', look.strike ? 'line-through' : ''].filter(Boolean)
  if (lines.length > 0) style.textDecoration = lines.join(' ')
  if (look.color !== undefined) style.color = look.color
  if (look.fontSize !== undefined && look.fontSize !== baseFontSize) style.fontSize = `${(look.fontSize * 4) / 3}px`
  if (look.fontName !== undefined) style.fontFamily = family(look.fontName)
  if (look.fill !== undefined) style.backgroundColor = look.fill
  const top = border(look.top)
  const right = border(look.right)
  const bottom = border(look.bottom)
  const left = border(look.left)
  if (top) style.borderTop = top
  if (right) style.borderRight = right
  if (bottom) style.borderBottom = bottom
  if (left) style.borderLeft = left
  if (look.wrap) style.whiteSpace = 'pre-wrap'
  return style
}
