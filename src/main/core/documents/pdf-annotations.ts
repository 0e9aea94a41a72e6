import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { PdfAnnotationInfo } from '../../../shared/protocol/documents'
import type { PdfBudget } from './pdf-load'
import { charCentres, quadsOf, textUnderQuads, type CharCentres, type PdfTextItem } from './pdf-text'

/**
 * A page's existing annotations as `read`, `pdf_annotate` and Review name them.
 *
 * Ids: an annotation that is its own PDF object is named by its object reference ("12R", what
 * pdf.js calls its id): stable across incremental saves, which keep object numbers. One written
 * inline in the page's /Annots array has no reference; it is named `p<page>.a<n>` (its 1-based place
 * among the page's listed annotations), stable as long as the page's list is unchanged.
 *
 * Popups are not listed: a popup only shows its parent's text, which the parent's line already
 * carries (and removing the parent removes its popup). Links and form widgets are not listed
 * either: they are navigation and fields, not comments a person or the agent leaves.
 */

const NOT_LISTED = new Set(['popup', 'link', 'widget'])
/** Markup annotations whose meaning is the page text under them. */
const TEXT_MARKUP = new Set(['highlight', 'underline', 'squiggly', 'strikeout'])
const REF_ID = /^\d+R$/u
/**
 * Markup annotations of one page whose quoted text is worked out (each costs a pass over the
 * page's characters); past it `quoted` is "" — on both sides of a diff alike.
 */
const QUOTED_PER_PAGE = 500

export interface PdfAnnotationEntry {
  readonly info: PdfAnnotationInfo
  /** pdf.js's own id of the annotation (the reference for linked ones), for deletion. */
  readonly pdfjsId: string
  readonly popupRef: string | null
  readonly linked: boolean
}

interface RawAnnotation {
  id?: unknown
  subtype?: unknown
  color?: ArrayLike<number> | null
  contentsObj?: { str?: unknown } | null
  rect?: ArrayLike<number> | null
  quadPoints?: ArrayLike<number> | null
  popupRef?: unknown
  defaultAppearanceData?: { fontColor?: ArrayLike<number> | null } | null
}

export function colorHex(color: ArrayLike<number> | null | undefined): string | null {
  if (!color || color.length < 3) return null
  const byte = (value: number | undefined) =>
    Math.max(0, Math.min(255, Math.round(value ?? 0)))
      .toString(16)
      .padStart(2, '0')
  return `#${byte(color[0])}${byte(color[1])}${byte(color[2])}`
}

const round = (value: number | undefined) => Math.round((value ?? 0) * 100) / 100

export async function pageAnnotations(
  page: PDFPageProxy,
  pageNumber: number,
  items: readonly PdfTextItem[],
  budget: PdfBudget,
): Promise<PdfAnnotationEntry[]> {
  const raw = (await budget.run(page.getAnnotations({ intent: 'display' }))) as RawAnnotation[]
  const entries: PdfAnnotationEntry[] = []
  let chars: CharCentres | null = null
  let quotedLeft = QUOTED_PER_PAGE
  for (const annotation of raw) {
    const type = typeof annotation.subtype === 'string' ? annotation.subtype.toLowerCase() : 'unknown'
    if (NOT_LISTED.has(type)) continue
    const pdfjsId = typeof annotation.id === 'string' ? annotation.id : ''
    const linked = REF_ID.test(pdfjsId)
    const rect = annotation.rect
    let quoted = ''
    if (TEXT_MARKUP.has(type) && quotedLeft > 0 && items.length > 0) {
      quotedLeft--
      chars ??= charCentres(items)
      quoted = textUnderQuads(chars, quadsOf(annotation.quadPoints))
    }
    entries.push({
      info: {
        id: linked ? pdfjsId : `p${pageNumber}.a${entries.length + 1}`,
        page: pageNumber,
        type,
        // A free text has no /C: its colour is the text's, in its default appearance string.
        color: colorHex(annotation.color ?? (type === 'freetext' ? annotation.defaultAppearanceData?.fontColor : null)),
        contents: typeof annotation.contentsObj?.str === 'string' ? annotation.contentsObj.str : '',
        quoted,
        rect: [round(rect?.[0]), round(rect?.[1]), round(rect?.[2]), round(rect?.[3])],
      },
      pdfjsId,
      popupRef: typeof annotation.popupRef === 'string' ? annotation.popupRef : null,
      linked,
    })
  }
  return entries
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/gu, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** `page 4, highlight 12R (#ffd400): "quoted text" — note: …` */
export function annotationLine(info: PdfAnnotationInfo): string {
  const color = info.color ? ` (${info.color})` : ''
  const quoted = info.quoted !== '' ? `: "${shorten(info.quoted, 300)}"` : ''
  const label = info.type === 'freetext' ? 'text' : 'note'
  const contents = info.contents.trim() !== '' ? ` — ${label}: ${shorten(info.contents, 500)}` : ''
  return `page ${info.page}, ${info.type} ${info.id}${color}${quoted}${contents}`
}
