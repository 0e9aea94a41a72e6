import { z } from 'zod'

/**
 * What changed inside a document (issue 26), for Review, approval cards and restore previews.
 * Computed by the engine from the two recorded blobs of a row; the renderer only draws it.
 * Every list is bounded: `truncated` says when the engine stopped listing (the counts stay exact).
 */

/** A run of text in a word-level diff. */
export const TextSegmentSchema = z.object({
  kind: z.enum(['same', 'added', 'removed']),
  text: z.string(),
})
export type TextSegment = z.infer<typeof TextSegmentSchema>

/**
 * One changed block of a Word document: a paragraph, or a table cell (anchor `t2.r3.c1`). Anchors
 * are the ones `read` shows for that side (`p12`), so a person and the model name the same thing.
 */
export const DocxDiffEntrySchema = z.object({
  change: z.enum(['added', 'removed', 'changed', 'formatting']),
  /** `body`, `header`, `footer`, `footnotes`, `endnotes`. */
  story: z.string(),
  before_anchor: z.string().nullable(),
  after_anchor: z.string().nullable(),
  /** The paragraph style's name on the after side (before side for a removal), e.g. "Heading 1". */
  style: z.string().nullable(),
  /** Word-level: all `added` for an added block, all `removed` for a removed one. */
  segments: z.array(TextSegmentSchema),
  /** Formatting changes named in English words, e.g. "bold added", "style Normal → Heading 2". */
  formatting: z.array(z.string()),
})
export type DocxDiffEntry = z.infer<typeof DocxDiffEntrySchema>

export const DocxDiffSchema = z.object({
  kind: z.literal('docx'),
  /** Paragraphs and cells: the file list shows `+added ¶ −removed ¶` and `~changed`. */
  counts: z.object({
    added: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
    changed: z.number().int().nonnegative(),
  }),
  entries: z.array(DocxDiffEntrySchema),
  truncated: z.boolean(),
})
export type DocxDiff = z.infer<typeof DocxDiffSchema>

/** A cell as shown: its displayed value (text) and its formula without the leading `=`, if any. */
export const CellStateSchema = z.object({ value: z.string().nullable(), formula: z.string().nullable() })
export type CellState = z.infer<typeof CellStateSchema>

export const XlsxCellChangeSchema = z.object({
  address: z.string(),
  /** null: the cell was empty (absent) on that side. */
  before: CellStateSchema.nullable(),
  after: CellStateSchema.nullable(),
})
export type XlsxCellChange = z.infer<typeof XlsxCellChangeSchema>

export const XlsxSheetDiffSchema = z.object({
  name: z.string(),
  change: z.enum(['added', 'removed', 'changed', 'renamed']),
  old_name: z.string().nullable(),
  /** In row-major order. */
  cells: z.array(XlsxCellChangeSchema),
  /** Exact number of changed cells in this sheet (`cells` may be cut). */
  cell_count: z.number().int().nonnegative(),
  truncated: z.boolean(),
})
export type XlsxSheetDiff = z.infer<typeof XlsxSheetDiffSchema>

export const XlsxDiffSchema = z.object({
  kind: z.literal('xlsx'),
  counts: z.object({
    cells: z.number().int().nonnegative(),
    sheets_added: z.number().int().nonnegative(),
    sheets_removed: z.number().int().nonnegative(),
  }),
  sheets: z.array(XlsxSheetDiffSchema),
})
export type XlsxDiff = z.infer<typeof XlsxDiffSchema>

export const PptxShapeDiffSchema = z.object({
  /** The anchor `read` shows, `sh5` (the shape's `p:cNvPr/@id`). */
  shape: z.string(),
  name: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  segments: z.array(TextSegmentSchema),
})
export type PptxShapeDiff = z.infer<typeof PptxShapeDiffSchema>

export const PptxSlideDiffSchema = z.object({
  /** 1-based positions; null on the side where the slide does not exist. */
  before_index: z.number().int().positive().nullable(),
  after_index: z.number().int().positive().nullable(),
  /** `moved`: same slide, new position, text unchanged; a moved and edited slide is `changed`. */
  change: z.enum(['added', 'removed', 'moved', 'changed']),
  /** The slide's title text (after side, else before), or "" when it has none. */
  title: z.string(),
  shapes: z.array(PptxShapeDiffSchema),
})
export type PptxSlideDiff = z.infer<typeof PptxSlideDiffSchema>

export const PptxDiffSchema = z.object({
  kind: z.literal('pptx'),
  counts: z.object({
    slides_added: z.number().int().nonnegative(),
    slides_removed: z.number().int().nonnegative(),
    slides_changed: z.number().int().nonnegative(),
    slides_moved: z.number().int().nonnegative(),
  }),
  slides: z.array(PptxSlideDiffSchema),
})
export type PptxDiff = z.infer<typeof PptxDiffSchema>

export const PdfAnnotationInfoSchema = z.object({
  /** The annotation's object reference as `read` and `pdf_annotate` name it, e.g. "12R". */
  id: z.string(),
  /** 1-based page. */
  page: z.number().int().positive(),
  /** Lower-case PDF subtype: `highlight`, `freetext`, `text` (sticky note), `ink`, `square`, … */
  type: z.string(),
  /** `#rrggbb`, or null when the annotation has none. */
  color: z.string().nullable(),
  contents: z.string(),
  /** The page text under a markup annotation (highlight, underline, …), else "". */
  quoted: z.string(),
  /** [x1, y1, x2, y2] in PDF user space. */
  rect: z.tuple([z.number(), z.number(), z.number(), z.number()]),
})
export type PdfAnnotationInfo = z.infer<typeof PdfAnnotationInfoSchema>

export const PdfAnnotationChangeSchema = z.object({
  change: z.enum(['added', 'removed', 'changed']),
  before: PdfAnnotationInfoSchema.nullable(),
  after: PdfAnnotationInfoSchema.nullable(),
})
export type PdfAnnotationChange = z.infer<typeof PdfAnnotationChangeSchema>

export const PdfDiffSchema = z.object({
  kind: z.literal('pdf'),
  counts: z.object({
    added: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
    changed: z.number().int().nonnegative(),
    pages_changed: z.number().int().nonnegative(),
  }),
  annotations: z.array(PdfAnnotationChangeSchema),
  /** 1-based pages whose content (text or drawing, not annotations) differs; the UI shows them side by side. */
  pages_changed: z.array(z.number().int().positive()),
  page_count: z.object({ before: z.number().int().nonnegative(), after: z.number().int().nonnegative() }),
})
export type PdfDiff = z.infer<typeof PdfDiffSchema>

export const DocumentDiffSchema = z.discriminatedUnion('kind', [
  DocxDiffSchema,
  XlsxDiffSchema,
  PptxDiffSchema,
  PdfDiffSchema,
])
export type DocumentDiff = z.infer<typeof DocumentDiffSchema>

/** The one-line count a file row shows instead of line stats, e.g. `+3 ¶ −1 ¶`, `12 cells`. */
export const DocumentCountsSchema = z.object({
  unit: z.enum(['paragraph', 'cell', 'slide', 'annotation']),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
})
export type DocumentCounts = z.infer<typeof DocumentCountsSchema>
