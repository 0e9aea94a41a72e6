import { DOCUMENT_READ_MAX_CHARS, type DocumentReadOutcome, type DocumentReadRequest } from './document-edits'
import {
  cellText,
  DOCX_LINE_BREAK,
  DOCX_LINE_BREAK_SHOWN,
  openDocx,
  styleName,
  type DocxBlock,
  type DocxParagraph,
  type DocxStory,
  type DocxStyles,
  type DocxTable,
} from './docx-model'

/** Body blocks (a paragraph, or a whole table) one read shows when the model asks for no limit. */
export const DOCX_VIEW_DEFAULT_LIMIT = 400
/** One paragraph's or cell's text is cut past this, so one giant block cannot fill the whole view. */
const BLOCK_MAX_CHARS = 8_000

/** The text view `read` gives the model for a DOCX (issue 26), with the anchors `office_edit` takes. */
export async function readDocxView(bytes: Uint8Array, request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  const opened = await openDocx(bytes)
  if (opened.kind === 'refused') return { ...opened, edit_index: null }
  const { body, stories, styles } = opened.document
  const total = body.blocks.length
  const offset = wholeAtLeastOne(request.offset, 1)
  const limit = wholeAtLeastOne(request.limit, DOCX_VIEW_DEFAULT_LIMIT)
  const budget = DOCUMENT_READ_MAX_CHARS - 1_000 // room for the header line and the closing note

  const lines: string[] = []
  let used = 0
  let last = offset - 1
  for (let index = offset - 1; index < Math.min(total, offset - 1 + limit); index++) {
    const block = body.blocks[index]
    if (!block) break
    const rendered = renderBlock(block, body, styles)
    // The first block always shows (cut per block), so a read always moves forward.
    if (used + rendered.length > budget && last >= offset) break
    lines.push(rendered.length > budget ? `${rendered.slice(0, budget)}\n… (cut)` : rendered)
    used += rendered.length + 1
    last = index + 1
  }
  const reachedEnd = last >= total
  if (reachedEnd) {
    for (const story of stories) {
      if (story.kind === 'body') continue
      const rendered = renderStory(story, styles)
      if (rendered === '') continue
      if (used + rendered.length > budget) {
        lines.push(`--- ${story.kind} (${story.part}): not shown, the view is full`)
        continue
      }
      lines.push(rendered)
      used += rendered.length + 1
    }
  }

  const paragraphs = body.blocks.filter((b) => b.kind === 'paragraph').length
  const tables = body.tables.size
  const tracked = [...stories].some((s) => [...s.paragraphs.values()].some((p) => p.tracked))
  const shown =
    total === 0
      ? 'the body is empty'
      : offset > total
        ? `no blocks from ${offset} (the body has ${total})`
        : `blocks ${offset}–${last} of ${total}`
  const header = [
    `DOCX document: ${paragraphs} paragraphs, ${tables} tables (${total} body blocks; a block is a paragraph or a whole table). Showing ${shown}.`,
    reachedEnd ? 'End of the body; headers, footers and notes follow.' : `More: read again with offset=${last + 1}.`,
    `Anchors for office_edit: p<N> paragraph, t<N>.r<R>.c<C> table cell (its paragraphs joined by "\\n"), hdr<N>./ftr<N>. for headers and footers; fn/en notes are read-only. ${DOCX_LINE_BREAK_SHOWN} is a line break inside a paragraph.`,
    ...(tracked
      ? [
          'The document has tracked changes: text reads as if they were accepted; paragraphs marked (has tracked changes) cannot be edited.',
        ]
      : []),
  ]
  return { kind: 'ok', text: `${header.join('\n')}\n\n${lines.join('\n')}` }
}

function wholeAtLeastOne(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? Math.max(1, Math.floor(value)) : fallback
}

function renderStory(story: DocxStory, styles: DocxStyles): string {
  const title = `--- ${story.kind === 'header' ? `header ${story.prefix.slice(3, -1)}` : story.kind === 'footer' ? `footer ${story.prefix.slice(3, -1)}` : `${story.kind} (read-only)`} (${story.part})`
  if (story.kind === 'footnotes' || story.kind === 'endnotes') {
    if (story.notes.length === 0) return ''
    const notes = story.notes.map((note) => `[${note.anchor}] ${shown(note.paragraphs.map((p) => p.text).join('\n'))}`)
    return [title, ...notes].join('\n')
  }
  if (story.blocks.length === 0) return `${title}\n(empty)`
  return [title, ...story.blocks.map((block) => renderBlock(block, story, styles))].join('\n')
}

function renderBlock(block: DocxBlock, story: DocxStory, styles: DocxStyles): string {
  if (block.kind === 'paragraph') return renderParagraph(block.paragraph, block.paragraph.anchor, styles)
  return renderTable(block.table, story, styles)
}

function renderParagraph(paragraph: DocxParagraph, anchor: string, styles: DocxStyles): string {
  const marks: string[] = []
  if (paragraph.styleId !== null && paragraph.styleId !== styles.defaultParagraph)
    marks.push(styleName(styles, paragraph.styleId))
  if (paragraph.listLevel !== null)
    marks.push(paragraph.listLevel === 0 ? 'list item' : `list item, level ${paragraph.listLevel + 1}`)
  if (paragraph.tracked) marks.push('has tracked changes')
  if (paragraph.container) marks.push(`in a ${paragraph.container}`)
  const opaque = [
    ...new Set(
      paragraph.atoms
        .filter((a) => a.kind === 'opaque' && a.text === '' && a.what !== null && a.what !== 'field code')
        .map((a) => a.what),
    ),
  ]
  if (opaque.length > 0) marks.push(`holds ${opaque.join(', ')}`)
  const prefix = `[${anchor}]${marks.map((m) => ` (${m})`).join('')}`
  return paragraph.text === '' ? `${prefix} (empty)` : `${prefix} ${shown(paragraph.text)}`
}

function renderTable(table: DocxTable, story: DocxStory, styles: DocxStyles): string {
  const lines = [`[${table.anchor}] table, ${table.rows} rows × ${table.columns} columns`]
  for (const cell of table.cells) {
    if (cell.mergedInto !== null) {
      lines.push(`[${cell.anchor}] merged into ${cell.mergedInto}`)
      continue
    }
    const text = cellText(cell)
    const marks: string[] = []
    if (cell.paragraphs.some((p) => p.tracked)) marks.push('has tracked changes')
    const prefix = `[${cell.anchor}]${marks.map((m) => ` (${m})`).join('')}`
    lines.push(text === '' ? `${prefix} (empty)` : `${prefix} ${shown(text)}`)
    for (const nested of cell.nested) {
      const inner = story.tables.get(nested)
      if (inner) lines.push(renderTable(inner, story, styles))
    }
  }
  return lines.join('\n')
}

function shown(text: string): string {
  const visible = text.split(DOCX_LINE_BREAK).join(DOCX_LINE_BREAK_SHOWN)
  return visible.length > BLOCK_MAX_CHARS
    ? `${visible.slice(0, BLOCK_MAX_CHARS)}… (cut: ${visible.length} characters in all)`
    : visible
}
