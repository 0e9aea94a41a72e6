import { z } from 'zod'

/**
 * The agent's document tools' arguments (issue 26) and what the format patchers answer. The
 * schemas are the public contract of `office_edit` and `pdf_annotate` (spec 05: tool and parameter
 * names are part of it); every string and list is bounded because a model's arguments are hostile.
 *
 * Anchors name what `read` showed: DOCX `p12` (body paragraph), `t2.r3.c1` (table cell),
 * `hdr1.p1` / `ftr1.p1` (header/footer paragraph); PPTX `s3.sh5` (slide 3, shape id 5). All
 * anchors of one call refer to the document as it was read, before any edit of the call.
 */

const Anchor = z.string().min(1).max(100)
const Text = z.string().max(100_000)
const CellScalar = z.union([z.string().max(32_767), z.number(), z.boolean(), z.null()])

export const DocumentEditSchema = z.discriminatedUnion('op', [
  /** DOCX paragraph or cell, PPTX shape: the whole text ("\n" separates paragraphs). */
  z.object({ op: z.literal('replace_text'), anchor: Anchor, text: Text }).strict(),
  /** DOCX: a new paragraph after `after` (a paragraph or a cell's last paragraph), in `style` if given (name or id). */
  z
    .object({ op: z.literal('insert_paragraph'), after: Anchor, text: Text, style: z.string().max(200).optional() })
    .strict(),
  /** DOCX: remove one paragraph. */
  z.object({ op: z.literal('delete_paragraph'), anchor: Anchor }).strict(),
  /** XLSX: `range` is `B2` or `B2:D4`; `values` has its rows × columns; a string starting with "=" is a formula; null clears. */
  z
    .object({
      op: z.literal('set_cells'),
      sheet: z.string().min(1).max(200).optional(),
      range: z.string().min(2).max(40),
      values: z.array(z.array(CellScalar).max(1_000)).max(10_000),
    })
    .strict(),
  /** PPTX: a new slide after position `after` (0 = first), with the layout of slide `layout_of` (default: the slide at `after`, else the first). */
  z
    .object({
      op: z.literal('add_slide'),
      after: z.number().int().min(0).max(10_000),
      layout_of: z.number().int().min(1).max(10_000).optional(),
      title: Text.optional(),
      body: Text.optional(),
    })
    .strict(),
  /** PPTX: a copy of slide `slide` placed right after it. */
  z.object({ op: z.literal('duplicate_slide'), slide: z.number().int().min(1).max(10_000) }).strict(),
  z.object({ op: z.literal('delete_slide'), slide: z.number().int().min(1).max(10_000) }).strict(),
  /** PPTX: slide `slide` ends up at 1-based position `to`. */
  z
    .object({
      op: z.literal('move_slide'),
      slide: z.number().int().min(1).max(10_000),
      to: z.number().int().min(1).max(10_000),
    })
    .strict(),
])
export type DocumentEdit = z.infer<typeof DocumentEditSchema>

export const OfficeEditInputSchema = z
  .object({ path: z.string().min(1).max(4_096), edits: z.array(DocumentEditSchema).min(1).max(500) })
  .strict()
export type OfficeEditInput = z.infer<typeof OfficeEditInputSchema>

const Color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .optional()

export const PdfAnnotationEditSchema = z.discriminatedUnion('op', [
  /** Highlights the `occurrence`-th (1-based, default 1) match of `text` on `page`. */
  z
    .object({
      op: z.literal('highlight'),
      page: z.number().int().min(1).max(100_000),
      text: z.string().min(1).max(2_000),
      occurrence: z.number().int().min(1).max(10_000).optional(),
      color: Color,
      note: z.string().max(10_000).optional(),
    })
    .strict(),
  /**
   * A note on `page`: `free_text` (text drawn on the page, default) or `sticky` (an icon that opens
   * the text), placed next to the first match of `near_text`, or at `at` (PDF points from the
   * page's top-left corner), else in the top-left margin.
   */
  z
    .object({
      op: z.literal('note'),
      page: z.number().int().min(1).max(100_000),
      text: z.string().min(1).max(10_000),
      style: z.enum(['free_text', 'sticky']).optional(),
      near_text: z.string().min(1).max(2_000).optional(),
      at: z
        .object({ x: z.number().min(0).max(100_000), y: z.number().min(0).max(100_000) })
        .strict()
        .optional(),
      color: Color,
    })
    .strict(),
  /** Removes an annotation by the id `read` showed (e.g. "12R"). */
  z.object({ op: z.literal('remove'), id: z.string().min(2).max(40) }).strict(),
])
export type PdfAnnotationEdit = z.infer<typeof PdfAnnotationEditSchema>

export const PdfAnnotateInputSchema = z
  .object({ path: z.string().min(1).max(4_096), annotations: z.array(PdfAnnotationEditSchema).min(1).max(200) })
  .strict()
export type PdfAnnotateInput = z.infer<typeof PdfAnnotateInputSchema>

/**
 * Why an edit is refused; the engine maps each to a protocol code (INVALID_REQUEST, NOT_FOUND,
 * UNSUPPORTED) with zero writes. `edit_index` is the 0-based index of the first refused edit.
 */
export type DocumentEditRefusalReason =
  | 'missing-anchor'
  | 'merged-cell'
  | 'encrypted'
  | 'damaged'
  | 'wrong-format'
  | 'shape-mismatch'
  | 'no-text-found'
  | 'no-such-sheet'
  | 'no-such-slide'
  | 'no-such-annotation'
  | 'unsupported-content'
  | 'too-large'

export type DocumentEditOutcome =
  | {
      kind: 'ok'
      bytes: Uint8Array
      /** One English line per edit, for the tool's answer ("p12: replaced text", "Sheet1!B2:B4: 3 cells set"). */
      summary: string[]
    }
  | { kind: 'refused'; reason: DocumentEditRefusalReason; message: string; edit_index: number | null }

/** What `read` of a document asks: units (paragraph blocks, slides, pages, rows) from `offset`, or an XLSX range. */
export interface DocumentReadRequest {
  /** 1-based first unit. */
  readonly offset?: number
  readonly limit?: number
  /** XLSX: `Sheet1!A1:F200`, `A1:F200` (first sheet) or a sheet name. */
  readonly range?: string
}

export type DocumentReadOutcome =
  | { kind: 'ok'; text: string }
  | { kind: 'refused'; reason: DocumentEditRefusalReason; message: string; edit_index: null }

/** Output bound of a document read view, like `read`'s 2 000 lines. */
export const DOCUMENT_READ_MAX_CHARS = 60_000
