import { diffWordsWithSpace } from 'diff'
import type { DocumentEdit, DocumentEditOutcome, DocumentEditRefusalReason } from './document-edits'
import {
  DOCX_LINE_BREAK,
  DOCX_LINE_BREAK_SHOWN,
  normaliseAnchor,
  openDocx,
  resolveStyle,
  styleName,
  type Atom,
  type DocxCell,
  type DocxDocument,
  type DocxParagraph,
  type DocxStory,
} from './docx-model'
import { applySplices, children, escapeAttribute, escapeText, type Splice, type XmlElement } from './xml'

/**
 * `office_edit` on a DOCX (issue 26). Every anchor resolves against the document as it was read,
 * before any edit of the call; the edits become splices of the story parts they touch, so every
 * other part and every untouched byte of the touched parts stay as they were. One refusal refuses
 * the whole call, with nothing written.
 *
 * Decisions where the issue is silent:
 * - "\n" in the text of a paragraph anchor splits it into several paragraphs with the same
 *   paragraph properties (the first keeps the paragraph's runs where its text is unchanged), as
 *   pressing Enter in Word would; "↵" or U+000B is a line break inside the paragraph (`w:br`).
 * - A paragraph with tracked changes, or inside a content control, is refused whole: editing
 *   around revision marks without a revision author would misattribute the change.
 * - A field, a picture, a text box, a comment or a note reference refuses the edit only when the
 *   changed words reach it; the rest of the paragraph stays editable.
 * - Two edits of one call on the same paragraph are refused: their anchors would be ambiguous.
 */

class EditRefused extends Error {
  constructor(
    readonly reason: DocumentEditRefusalReason,
    message: string,
  ) {
    super(message)
  }
}

const refuse = (reason: DocumentEditRefusalReason, message: string): never => {
  throw new EditRefused(reason, message)
}

/** Applies `office_edit`'s edits to a DOCX: all or nothing, untouched parts byte-identical (issue 26). */
export async function editDocx(bytes: Uint8Array, edits: readonly DocumentEdit[]): Promise<DocumentEditOutcome> {
  const opened = await openDocx(bytes)
  if (opened.kind === 'refused') return { ...opened, edit_index: null }
  const plan = new EditPlan(opened.document)
  const summary: string[] = []
  for (const [index, edit] of edits.entries()) {
    try {
      summary.push(plan.apply(edit, index))
    } catch (error) {
      if (!(error instanceof EditRefused)) throw error
      return { kind: 'refused', reason: error.reason, message: error.message, edit_index: index }
    }
  }
  const changes = new Map<string, string>()
  for (const [part, splices] of plan.splices) {
    const story = opened.document.stories.find((s) => s.part === part)
    if (story && splices.length > 0) changes.set(part, applySplices(story.xml, splices))
  }
  if (changes.size === 0) return { kind: 'ok', bytes, summary }
  return { kind: 'ok', bytes: await opened.document.pkg.rewrite(changes), summary }
}

type Target =
  { kind: 'paragraph'; story: DocxStory; paragraph: DocxParagraph } | { kind: 'cell'; story: DocxStory; cell: DocxCell }

class EditPlan {
  readonly splices = new Map<string, Splice[]>()
  /** Paragraphs already changed by an edit of this call (`part:offset` → edit index). */
  private readonly touched = new Map<string, number>()
  /** Paragraphs deleted so far per story, so a call cannot delete a story's every paragraph. */
  private readonly deleted = new Map<string, number>()

  constructor(private readonly document: DocxDocument) {}

  apply(edit: DocumentEdit, index: number): string {
    switch (edit.op) {
      case 'replace_text':
        return this.replace(edit.anchor, edit.text, index)
      case 'insert_paragraph':
        return this.insert(edit.after, edit.text, edit.style)
      case 'delete_paragraph':
        return this.delete(edit.anchor, index)
      default:
        return refuse(
          'wrong-format',
          `${edit.op} does not apply to a Word document; a DOCX takes replace_text, insert_paragraph and delete_paragraph.`,
        )
    }
  }

  private add(story: DocxStory, splice: Splice): void {
    const list = this.splices.get(story.part) ?? []
    list.push(splice)
    this.splices.set(story.part, list)
  }

  private claim(story: DocxStory, paragraph: DocxParagraph, anchor: string, index: number): void {
    const key = `${story.part}:${paragraph.element.start}`
    const earlier = this.touched.get(key)
    if (earlier !== undefined) {
      refuse(
        'shape-mismatch',
        `Edit ${index + 1} changes ${anchor}, which edit ${earlier + 1} of this call already changes; put both changes in one edit.`,
      )
    }
    this.touched.set(key, index)
  }

  private replace(anchor: string, rawText: string, index: number): string {
    const target = this.resolve(anchor)
    const text = normaliseText(rawText)
    if (target.kind === 'paragraph') {
      const { story, paragraph } = target
      this.claim(story, paragraph, paragraph.anchor, index)
      const [first = '', ...rest] = text.split('\n')
      this.rewrite(story, paragraph, first)
      if (rest.length > 0) {
        const props = copiedParagraphProps(story.xml, paragraph)
        const runProps = copiedRunProps(story.xml, paragraph, 'last')
        const xml = rest.map((line) => paragraphXml(props, runProps, line)).join('')
        this.add(story, { start: paragraph.element.end, end: paragraph.element.end, text: xml })
      }
      return rest.length > 0
        ? `${paragraph.anchor}: replaced text, now ${rest.length + 1} paragraphs`
        : first === paragraph.text
          ? `${paragraph.anchor}: text unchanged`
          : `${paragraph.anchor}: replaced text`
    }
    const { story, cell } = target
    const lines = text.split('\n')
    const existing = cell.paragraphs
    for (const paragraph of existing) this.claim(story, paragraph, cell.anchor, index)
    for (let i = 0; i < Math.max(lines.length, existing.length); i++) {
      const paragraph = existing[i]
      const line = lines[i]
      if (paragraph && line !== undefined) this.rewrite(story, paragraph, line, cell.anchor)
      else if (paragraph) {
        guardWhole(story.xml, paragraph, cell.anchor)
        this.add(story, { start: paragraph.element.start, end: paragraph.element.end, text: '' })
      }
    }
    const extra = lines.slice(existing.length)
    if (extra.length > 0) {
      const first = existing[0]
      const props = first ? copiedParagraphProps(story.xml, first) : ''
      const last = existing[existing.length - 1]
      const runProps = last ? copiedRunProps(story.xml, last, 'last') : ''
      const xml = extra.map((line) => paragraphXml(props, runProps, line)).join('')
      // A cell must end with a paragraph, so new ones go at its very end (after any nested table).
      this.add(story, { start: cell.element.innerEnd, end: cell.element.innerEnd, text: xml })
    }
    if (text === existing.map((p) => p.text).join('\n')) return `${cell.anchor}: text unchanged`
    return `${cell.anchor}: replaced text${lines.length > 1 ? ` (${lines.length} paragraphs)` : ''}`
  }

  private insert(after: string, rawText: string, style: string | undefined): string {
    const target = this.resolve(after, 'insert')
    const story = target.story
    const template = target.kind === 'paragraph' ? target.paragraph : target.cell.paragraphs.at(-1)
    if (template?.container) {
      refuse('unsupported-content', `${after} is inside a content control; Retrace does not add paragraphs there.`)
    }
    let props = template ? copiedParagraphProps(story.xml, template) : ''
    let runProps = template ? copiedRunProps(story.xml, template, 'first') : ''
    let styleLabel = ''
    if (style !== undefined) {
      const id = resolveStyle(this.document.styles, style)
      if (id === undefined) {
        const known = [...this.document.styles.names.values()].slice(0, 40).join(', ')
        refuse(
          'missing-anchor',
          `The document has no style "${style}"${known ? `; its styles: ${known}` : ' (it has no styles part)'}.`,
        )
      }
      // A named style brings its own look: the new runs carry no direct formatting over it.
      props = `<w:pPr><w:pStyle w:val="${escapeAttribute(id ?? '')}"/></w:pPr>`
      runProps = ''
      styleLabel = ` (${styleName(this.document.styles, id ?? null)})`
    }
    const at = target.kind === 'paragraph' ? target.paragraph.element.end : target.cell.element.innerEnd
    const lines = normaliseText(rawText).split('\n')
    this.add(story, { start: at, end: at, text: lines.map((line) => paragraphXml(props, runProps, line)).join('') })
    return `inserted ${lines.length === 1 ? 'a paragraph' : `${lines.length} paragraphs`}${styleLabel} after ${after.trim()}`
  }

  private delete(anchor: string, index: number): string {
    const target = this.resolve(anchor)
    if (target.kind === 'cell') {
      return refuse(
        'shape-mismatch',
        `${target.cell.anchor} is a table cell, not a paragraph; to empty it, use replace_text with text "".`,
      )
    }
    const { story, paragraph } = target
    if (paragraph.hasSectPr) {
      refuse(
        'unsupported-content',
        `${paragraph.anchor} ends a section (it holds the section's page size, margins and headers); deleting it would merge two sections.`,
      )
    }
    const blocks = story.blocks
    const position = blocks.findIndex((b) => b.kind === 'paragraph' && b.paragraph === paragraph)
    if (story.kind === 'body' && position === blocks.length - 1) {
      refuse(
        'unsupported-content',
        `${paragraph.anchor} is the last paragraph of the document; Word needs one to end the body.`,
      )
    }
    const paragraphs = blocks.filter((b) => b.kind === 'paragraph').length
    const gone = (this.deleted.get(story.part) ?? 0) + 1
    if (gone >= paragraphs) {
      refuse(
        'unsupported-content',
        `${paragraph.anchor} is the last remaining paragraph of this ${story.kind}; Word needs at least one.`,
      )
    }
    guardWhole(story.xml, paragraph, paragraph.anchor)
    this.claim(story, paragraph, paragraph.anchor, index)
    this.deleted.set(story.part, gone)
    this.add(story, { start: paragraph.element.start, end: paragraph.element.end, text: '' })
    return `${paragraph.anchor}: deleted`
  }

  /** `insert` only reads its anchor: a paragraph with tracked changes can still get a neighbour. */
  private resolve(rawAnchor: string, purpose: 'change' | 'insert' = 'change'): Target {
    const anchor = normaliseAnchor(rawAnchor)
    if (/^(fn|en)\d+/.test(anchor)) {
      return refuse('unsupported-content', `${rawAnchor} is a footnote or endnote; notes are read-only here.`)
    }
    const story =
      this.document.stories.find((s) => s.editable && s.prefix !== '' && anchor.startsWith(s.prefix)) ??
      (/^(hdr|ftr)\d+\./.test(anchor) ? undefined : this.document.body)
    if (!story) return refuse('missing-anchor', `There is no ${rawAnchor}: ${storiesLine(this.document)}.`)
    const paragraph = story.paragraphs.get(anchor)
    if (paragraph) {
      if (purpose === 'change') guardParagraph(paragraph, paragraph.anchor)
      return { kind: 'paragraph', story, paragraph }
    }
    const cell = story.cells.get(anchor)
    if (cell) {
      if (cell.mergedInto !== null) {
        refuse(
          'merged-cell',
          `${cell.anchor} is part of the merged cell ${cell.mergedInto}; edit ${cell.mergedInto} instead.`,
        )
      }
      if (purpose === 'change') for (const p of cell.paragraphs) guardParagraph(p, cell.anchor)
      return { kind: 'cell', story, cell }
    }
    return refuse('missing-anchor', `There is no ${rawAnchor}: ${rangeLine(story)}.`)
  }

  /** Splices one paragraph's runs so it reads `text`, keeping every run whose text stays. */
  private rewrite(story: DocxStory, paragraph: DocxParagraph, text: string, anchor = paragraph.anchor): void {
    for (const splice of paragraphSplices(story.xml, paragraph, text, anchor)) this.add(story, splice)
  }
}

function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, '\n').split(DOCX_LINE_BREAK_SHOWN).join(DOCX_LINE_BREAK)
}

function guardParagraph(paragraph: DocxParagraph, anchor: string): void {
  if (paragraph.tracked) {
    refuse(
      'unsupported-content',
      `${anchor} has tracked changes; accept or reject them in Word before editing it here.`,
    )
  }
  if (paragraph.container)
    refuse('unsupported-content', `${anchor} is inside a ${paragraph.container}; Retrace does not edit those.`)
}

/** What removing a whole paragraph would take with it. */
function guardWhole(xml: string, paragraph: DocxParagraph, anchor: string): void {
  const held = paragraph.atoms.find((a) => a.guard !== null || (a.kind === 'opaque' && a.what !== null))
  if (held)
    refuse('unsupported-content', `${anchor} holds a ${held.guard ?? held.what}; deleting it would remove that too.`)
  const inner = xml.slice(paragraph.element.innerStart, paragraph.element.innerEnd)
  if (inner.includes('<w:commentRangeStart') || inner.includes('<w:commentRangeEnd')) {
    refuse(
      'unsupported-content',
      `${anchor} holds the start or end of a comment; deleting it would break that comment.`,
    )
  }
}

function rangeLine(story: DocxStory): string {
  const paragraphs = [...story.paragraphs.keys()]
  const tables = [...story.tables.keys()]
  const where = story.kind === 'body' ? 'the body' : `this ${story.kind}`
  const parts = [
    paragraphs.length > 0 ? `paragraphs ${paragraphs[0]}–${paragraphs[paragraphs.length - 1]}` : 'no paragraphs',
    tables.length > 0 ? `tables ${tables[0]}–${tables[tables.length - 1]} (cells as t1.r1.c1)` : 'no tables',
  ]
  return `${where} has ${parts.join(' and ')}`
}

function storiesLine(document: DocxDocument): string {
  const prefixes = document.stories.filter((s) => s.prefix !== '').map((s) => s.prefix.slice(0, -1))
  return prefixes.length > 0
    ? `the document's headers and footers are ${prefixes.join(', ')}`
    : 'the document has no headers or footers'
}

interface Hunk {
  readonly from: number
  readonly to: number
  readonly insert: string
}

/** The changed spans between two texts, word by word, in old-text offsets. */
function hunksBetween(old: string, text: string): Hunk[] {
  const hunks: Hunk[] = []
  let at = 0
  let current: { from: number; to: number; insert: string } | null = null
  for (const change of diffWordsWithSpace(old, text)) {
    if (change.added || change.removed) {
      current ??= { from: at, to: at, insert: '' }
      if (change.removed) {
        at += change.value.length
        current.to = at
      } else current.insert += change.value
    } else {
      if (current) hunks.push(current)
      current = null
      at += change.value.length
    }
  }
  if (current) hunks.push(current)
  return hunks
}

const HOSTABLE = new Set<Atom['kind']>(['text', 'tab', 'break'])

function paragraphSplices(xml: string, paragraph: DocxParagraph, text: string, anchor: string): Splice[] {
  if (paragraph.text === text) return []
  const hunks = hunksBetween(paragraph.text, text)
  const atoms = paragraph.atoms
  /** Per atom: removed local offsets and insertions by local offset. */
  const plans = new Map<Atom, { removed: Array<[number, number]>; inserts: Map<number, string> }>()
  const planOf = (atom: Atom) => {
    let plan = plans.get(atom)
    if (!plan) {
      plan = { removed: [], inserts: new Map() }
      plans.set(atom, plan)
    }
    return plan
  }
  const orphanInserts: Array<{ at: number; text: string }> = []
  for (const hunk of hunks) {
    for (const atom of atoms) {
      const end = atom.from + atom.text.length
      const overlaps =
        atom.text.length > 0 ? atom.from < hunk.to && end > hunk.from : hunk.from < atom.from && atom.from < hunk.to
      if (!overlaps) continue
      if (atom.guard)
        refuse(
          'unsupported-content',
          `The change to ${anchor} reaches into a ${atom.guard}; Retrace does not edit those.`,
        )
      if (atom.kind === 'opaque') {
        refuse(
          'unsupported-content',
          `The change to ${anchor} would remove a ${atom.what ?? 'special element'}; keep the text around it.`,
        )
      }
      planOf(atom).removed.push([Math.max(hunk.from, atom.from) - atom.from, Math.min(hunk.to, end) - atom.from])
    }
    if (hunk.insert === '') continue
    const hosts = atoms.filter((a) => HOSTABLE.has(a.kind) && a.guard === null)
    const byKind = (kind: Atom['kind']) => hosts.filter((a) => a.kind === kind)
    // A pure insertion at a run boundary continues the run before it, as typing in Word does; a
    // replacement takes the formatting of the first character it replaces.
    const containing = (list: Atom[]) => list.find((a) => a.from <= hunk.from && hunk.from < a.from + a.text.length)
    const ending = (list: Atom[]) => list.find((a) => a.text.length > 0 && a.from + a.text.length === hunk.from)
    const pick = (list: Atom[]) =>
      (hunk.from === hunk.to ? (ending(list) ?? containing(list)) : (containing(list) ?? ending(list))) ??
      list.find((a) => a.from >= hunk.from)
    const host = pick(byKind('text')) ?? pick(hosts)
    if (!host) {
      const guarded = atoms.find((a) => a.guard !== null && a.from <= hunk.from && hunk.from <= a.from + a.text.length)
      if (guarded)
        refuse(
          'unsupported-content',
          `The change to ${anchor} reaches into a ${guarded.guard}; Retrace does not edit those.`,
        )
      orphanInserts.push({ at: hunk.from, text: hunk.insert })
      continue
    }
    const local = Math.min(Math.max(hunk.from - host.from, 0), host.text.length)
    const inserts = planOf(host).inserts
    inserts.set(local, (inserts.get(local) ?? '') + hunk.insert)
  }
  const splices: Splice[] = []
  for (const [atom, plan] of plans) {
    let rebuilt = ''
    for (let i = 0; i <= atom.text.length; i++) {
      rebuilt += plan.inserts.get(i) ?? ''
      if (i < atom.text.length && !plan.removed.some(([from, to]) => from <= i && i < to)) rebuilt += atom.text[i]
    }
    if (rebuilt === atom.text) continue
    splices.push({ start: atom.element.start, end: atom.element.end, text: runContent(rebuilt) })
  }
  if (orphanInserts.length > 0) {
    // No run to take the text (an empty paragraph): one new run with the paragraph mark's formatting.
    const mark = paragraphMarkRunProps(xml, paragraph)
    const inserted = orphanInserts.map((o) => o.text).join('')
    const at = paragraph.element.empty ? paragraph.element.end : paragraph.element.innerEnd
    if (paragraph.element.empty) {
      const open = xml.slice(paragraph.element.start, paragraph.element.end).replace(/\s*\/>$/, '>')
      splices.push({
        start: paragraph.element.start,
        end: at,
        text: `${open}<w:r>${mark}${runContent(inserted)}</w:r></w:p>`,
      })
    } else splices.push({ start: at, end: at, text: `<w:r>${mark}${runContent(inserted)}</w:r>` })
  }
  return splices
}

/** Text as the content of a run: `w:t` pieces, `w:tab` for tabs, `w:br` for line breaks. */
function runContent(text: string): string {
  let xml = ''
  for (const piece of splitKeeping(text)) {
    if (piece === '') continue
    if (piece === '\t') xml += '<w:tab/>'
    else if (piece === DOCX_LINE_BREAK) xml += '<w:br/>'
    // Without xml:space="preserve" a reader may drop leading, trailing and repeated spaces.
    else xml += `<w:t${/^\s|\s$|\s\s/.test(piece) ? ' xml:space="preserve"' : ''}>${escapeText(piece)}</w:t>`
  }
  return xml
}

/** Text split around tabs and line breaks, keeping them as pieces of their own. */
function splitKeeping(text: string): string[] {
  const pieces: string[] = []
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c !== '\t' && c !== DOCX_LINE_BREAK) continue
    pieces.push(text.slice(start, i), c)
    start = i + 1
  }
  pieces.push(text.slice(start))
  return pieces
}

function paragraphXml(props: string, runProps: string, text: string): string {
  return text === '' ? `<w:p>${props}</w:p>` : `<w:p>${props}<w:r>${runProps}${runContent(text)}</w:r></w:p>`
}

/** Revision marks and section breaks never travel into a copy: the copy is new, unrevised text. */
function withoutRevisions(xml: string): string {
  return xml
    .replace(/<w:(pPrChange|rPrChange|sectPr)\b[^>]*\/>/g, '')
    .replace(/<w:(pPrChange|rPrChange|sectPr)\b[\s\S]*?<\/w:\1>/g, '')
    .replace(/<w:(ins|del|moveFrom|moveTo)\b[^>]*\/>/g, '')
}

function paragraphProps(xml: string, paragraph: DocxParagraph): XmlElement | undefined {
  if (paragraph.element.empty) return undefined
  return children(xml, paragraph.element).find((c) => c.name === 'w:pPr')
}

function copiedParagraphProps(xml: string, paragraph: DocxParagraph): string {
  const pPr = paragraphProps(xml, paragraph)
  return pPr ? withoutRevisions(xml.slice(pPr.start, pPr.end)) : ''
}

function paragraphMarkRunProps(xml: string, paragraph: DocxParagraph): string {
  const pPr = paragraphProps(xml, paragraph)
  const mark = pPr && !pPr.empty ? children(xml, pPr).find((c) => c.name === 'w:rPr') : undefined
  return mark ? withoutRevisions(xml.slice(mark.start, mark.end)) : ''
}

/** The run properties of the paragraph's first or last text run, else of its paragraph mark. */
function copiedRunProps(xml: string, paragraph: DocxParagraph, which: 'first' | 'last'): string {
  const texts = paragraph.atoms.filter((a) => a.kind === 'text' && a.run !== null)
  const atom = which === 'first' ? texts[0] : texts[texts.length - 1]
  const run = atom?.run
  if (run && !run.empty) {
    const rPr = children(xml, run).find((c) => c.name === 'w:rPr')
    return rPr ? withoutRevisions(xml.slice(rPr.start, rPr.end)) : ''
  }
  return paragraphMarkRunProps(xml, paragraph)
}
