import { localName, mainPart, relationshipsOf } from './opc'
import {
  applySplices,
  attributesAt,
  children,
  decodeEntities,
  escapeText,
  elementAt,
  findFirst,
  scanTags,
  type Splice,
  type XmlElement,
} from './xml'
import { openPackage, PackageError } from './zip'

/**
 * Slide text: reading every text box of every slide, and editing one text box's paragraphs in
 * place. Only the runs of that shape change, inside that one slide part; formatting of the text
 * that stays is kept (the edit goes into the run where the change begins), and every other part of
 * the package is copied byte for byte. A soft line break (`<a:br/>`) is U+000B in paragraph text,
 * as PowerPoint's own object model has it.
 */

export const LINE_BREAK = '\u000b'

export interface SlideText {
  /** 1-based, in presentation order. */
  readonly index: number
  readonly part: string
  readonly hidden: boolean
  readonly shapes: ShapeText[]
}

export interface ShapeText {
  /** `p:cNvPr/@id`, unique within the slide. */
  readonly id: string
  readonly name: string
  readonly paragraphs: string[]
}

export type SlideEditOutcome =
  | { kind: 'ok'; bytes: Uint8Array; changedParts: string[] }
  | { kind: 'refused'; reason: 'no-such-slide' | 'no-such-shape'; message: string }

async function slideParts(bytes: Uint8Array) {
  const pkg = await openPackage(bytes)
  const presentation = await mainPart(pkg)
  if (presentation === undefined || !pkg.has(presentation)) {
    throw new PackageError('missing-part', 'The package has no presentation part.')
  }
  const xml = await pkg.text(presentation)
  const rels = await relationshipsOf(pkg, presentation)
  const parts: string[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close' || localName(tag.name) !== 'sldId') continue
    const rid = [...attributesAt(xml, tag.start)].find(([name]) => name.includes(':') && localName(name) === 'id')?.[1]
    const rel = rels.find((r) => r.id === rid && r.type === 'slide')
    if (rel && pkg.has(rel.target)) parts.push(rel.target)
  }
  return { pkg, parts }
}

export async function readSlideTexts(bytes: Uint8Array): Promise<SlideText[]> {
  const { pkg, parts } = await slideParts(bytes)
  const slides: SlideText[] = []
  for (const [i, part] of parts.entries()) {
    const xml = await pkg.text(part)
    const root = findFirst(xml, 'p:sld')
    slides.push({
      index: i + 1,
      part,
      hidden: root !== undefined && attributesAt(xml, root.start).get('show') === '0',
      shapes: textShapes(xml).map((shape) => ({
        id: shape.id,
        name: shape.name,
        paragraphs: shape.paragraphs.map((p) => paragraphText(xml, p)),
      })),
    })
  }
  return slides
}

interface TextShape {
  readonly id: string
  readonly name: string
  readonly body: XmlElement
  readonly paragraphs: XmlElement[]
}

/** Shapes (`p:sp`, also inside groups) that carry a text body. */
function textShapes(xml: string): TextShape[] {
  const shapes: TextShape[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind !== 'open' || tag.name !== 'p:sp') continue
    const element = elementAt(xml, tag)
    const props = findFirst(xml, 'p:cNvPr', element.innerStart, element.innerEnd)
    const body = findFirst(xml, 'p:txBody', element.innerStart, element.innerEnd)
    if (!props || !body) continue
    const attributes = attributesAt(xml, props.start)
    shapes.push({
      id: attributes.get('id') ?? '',
      name: attributes.get('name') ?? '',
      body,
      paragraphs: children(xml, body).filter((c) => c.name === 'a:p'),
    })
  }
  return shapes
}

type Piece =
  | { kind: 'run'; element: XmlElement; text: string; textElement: XmlElement | undefined }
  | { kind: 'break'; element: XmlElement }
  | { kind: 'field'; element: XmlElement; text: string }

function pieces(xml: string, paragraph: XmlElement): Piece[] {
  const found: Piece[] = []
  for (const child of children(xml, paragraph)) {
    if (child.name === 'a:r') {
      const t = findFirst(xml, 'a:t', child.innerStart, child.innerEnd)
      const text = t && !t.empty ? decodeEntities(xml.slice(t.innerStart, t.innerEnd)) : ''
      found.push({ kind: 'run', element: child, text, textElement: t })
    } else if (child.name === 'a:br') {
      found.push({ kind: 'break', element: child })
    } else if (child.name === 'a:fld') {
      const t = findFirst(xml, 'a:t', child.innerStart, child.innerEnd)
      found.push({ kind: 'field', element: child, text: t ? decodeEntities(xml.slice(t.innerStart, t.innerEnd)) : '' })
    }
  }
  return found
}

function pieceText(piece: Piece): string {
  return piece.kind === 'break' ? LINE_BREAK : piece.text
}

function paragraphText(xml: string, paragraph: XmlElement): string {
  return pieces(xml, paragraph).map(pieceText).join('')
}

/** Replaces the paragraphs of one shape's text body; unchanged paragraphs are left untouched. */
export async function editSlideText(
  bytes: Uint8Array,
  edit: { slide: number; shapeId: string; paragraphs: readonly string[] },
): Promise<SlideEditOutcome> {
  const { pkg, parts } = await slideParts(bytes)
  const part = parts[edit.slide - 1]
  if (part === undefined)
    return { kind: 'refused', reason: 'no-such-slide', message: `There is no slide ${edit.slide}.` }
  const xml = await pkg.text(part)
  const shape = textShapes(xml).find((s) => s.id === edit.shapeId)
  if (!shape) {
    return {
      kind: 'refused',
      reason: 'no-such-shape',
      message: `Slide ${edit.slide} has no text box with id ${edit.shapeId}.`,
    }
  }
  const updated = rewriteTextBody(xml, shape.body, edit.paragraphs)
  if (updated === undefined) return { kind: 'ok', bytes, changedParts: [] }
  return { kind: 'ok', bytes: await pkg.rewrite(new Map([[part, updated]])), changedParts: [part] }
}

/** The paragraphs (`a:p`) of a text body (`p:txBody`, `a:txBody`) as text, soft breaks as U+000B. */
export function textBodyParagraphs(xml: string, body: XmlElement): string[] {
  return children(xml, body)
    .filter((c) => c.name === 'a:p')
    .map((p) => paragraphText(xml, p))
}

/**
 * The part's XML with the paragraphs of one text body replaced by `paragraphs` (unchanged ones
 * left as written, changed ones keeping the formatting of the text that stays); `undefined` when
 * nothing changes. Works on a shape's `p:txBody` and on a table cell's `a:txBody` alike.
 */
export function rewriteTextBody(xml: string, body: XmlElement, paragraphs: readonly string[]): string | undefined {
  const splices: Splice[] = []
  const wanted = paragraphs.length === 0 ? [''] : paragraphs
  const existing = children(xml, body).filter((c) => c.name === 'a:p')
  for (let i = 0; i < Math.max(wanted.length, existing.length); i++) {
    const paragraph = existing[i]
    const text = wanted[i]
    if (paragraph && text !== undefined) {
      const replacement = rewriteParagraph(xml, paragraph, text)
      if (replacement !== undefined) splices.push({ start: paragraph.start, end: paragraph.end, text: replacement })
    } else if (paragraph) {
      splices.push({ start: paragraph.start, end: paragraph.end, text: '' })
    } else if (text !== undefined) {
      const template = existing[existing.length - 1]
      const at = template ? template.end : body.innerEnd
      splices.push({ start: at, end: at, text: newParagraph(xml, template, text) })
    }
  }
  if (splices.length === 0) return undefined
  // Inserted paragraphs follow the last one in order: give equal offsets a stable order.
  const ordered = splices.map((s, i) => ({ ...s, order: i }))
  return applyInOrder(xml, ordered)
}

function applyInOrder(xml: string, splices: Array<Splice & { order: number }>): string {
  const grouped = new Map<string, string>()
  const merged: Splice[] = []
  for (const splice of splices) {
    const key = `${splice.start}:${splice.end}`
    if (splice.start === splice.end && grouped.has(key)) {
      grouped.set(key, (grouped.get(key) ?? '') + splice.text)
    } else grouped.set(key, splice.text)
  }
  for (const [key, text] of grouped) {
    const [start, end] = key.split(':').map(Number)
    merged.push({ start: start ?? 0, end: end ?? 0, text })
  }
  return applySplices(xml, merged)
}

/**
 * The paragraph with `text`, keeping every run outside the changed span as it was: the changed
 * middle goes into the run where the change starts (so it takes that run's formatting), runs fully
 * inside the span disappear. `undefined` when the text is unchanged.
 */
function rewriteParagraph(xml: string, paragraph: XmlElement, text: string): string | undefined {
  const list = pieces(xml, paragraph)
  const old = list.map(pieceText).join('')
  if (old === text) return undefined
  let prefix = 0
  while (prefix < old.length && prefix < text.length && old[prefix] === text[prefix]) prefix++
  let suffix = 0
  while (
    suffix < old.length - prefix &&
    suffix < text.length - prefix &&
    old[old.length - 1 - suffix] === text[text.length - 1 - suffix]
  ) {
    suffix++
  }
  const changeStart = prefix
  const changeEnd = old.length - suffix
  const middle = text.slice(prefix, text.length - suffix)

  // Positions of each piece in the old text.
  const spans: Array<{ piece: Piece; from: number; to: number }> = []
  let at = 0
  for (const piece of list) {
    const length = pieceText(piece).length
    spans.push({ piece, from: at, to: at + length })
    at += length
  }
  // The run that receives the new middle: the run containing the change start, else the run ending
  // there, else the first run after it; with no run at all a new one is made from the paragraph's
  // end-of-paragraph properties.
  const host =
    spans.find((s) => s.piece.kind === 'run' && s.from <= changeStart && changeStart < s.to) ??
    spans.find((s) => s.piece.kind === 'run' && s.to === changeStart) ??
    spans.find((s) => s.piece.kind === 'run' && s.from >= changeStart)

  let output = ''
  let cursor = paragraph.innerStart
  let inserted = false
  const emit = (from: number, replacement: string) => {
    output += xml.slice(cursor, from) + replacement
  }
  for (const span of spans) {
    const { piece } = span
    const overlaps = span.from < changeEnd && span.to > changeStart
    if (span === host) {
      const run = piece as Extract<Piece, { kind: 'run' }>
      const keepBefore = run.text.slice(0, Math.max(0, changeStart - span.from))
      const keepAfter = run.text.slice(Math.max(0, Math.min(run.text.length, changeEnd - span.from)))
      emit(piece.element.start, runsWithText(xml, run, keepBefore + middle + keepAfter))
      inserted = true
    } else if (
      overlaps ||
      (piece.kind !== 'break' && span.from === span.to && span.from > changeStart && span.from < changeEnd)
    ) {
      if (piece.kind === 'run') {
        // A run partly inside the span keeps its outside part.
        const keepBefore = piece.text.slice(0, Math.max(0, changeStart - span.from))
        const keepAfter = piece.text.slice(Math.max(0, Math.min(piece.text.length, changeEnd - span.from)))
        const kept = keepBefore + keepAfter
        emit(piece.element.start, kept === '' ? '' : runsWithText(xml, piece, kept))
      } else {
        emit(piece.element.start, '')
      }
    } else {
      continue
    }
    cursor = piece.element.end
  }
  if (!inserted && middle !== '') {
    // No run to host the text (an empty paragraph or only breaks): add one before the end properties.
    const end = findFirst(xml, 'a:endParaRPr', paragraph.innerStart, paragraph.innerEnd)
    const insertAt = end ? end.start : paragraph.innerEnd
    const props = end ? runPropertiesFrom(xml, end) : ''
    emit(insertAt, runXml(props, middle))
    cursor = insertAt
  }
  output += xml.slice(cursor, paragraph.innerEnd)
  return xml.slice(paragraph.start, paragraph.innerStart) + output + xml.slice(paragraph.innerEnd, paragraph.end)
}

/** A run with new text; line breaks in the text become `<a:br>` with the run's properties. */
function runsWithText(xml: string, run: Extract<Piece, { kind: 'run' }>, text: string): string {
  if (text === '') return ''
  const lines = text.split(LINE_BREAK)
  const rPr = findFirst(xml, 'a:rPr', run.element.innerStart, run.element.innerEnd)
  const props = rPr ? xml.slice(rPr.start, rPr.end) : ''
  return lines
    .map((line, i) => {
      const brk = i > 0 ? `<a:br>${props}</a:br>` : ''
      if (line === '') return brk
      if (i === 0 && lines.length === 1 && run.textElement) {
        // Same run element, only the text replaced: everything else in it stays as written.
        const t = run.textElement
        const openTag = xml.slice(t.start, t.empty ? t.end - 2 : t.innerStart).replace(/\/$/, '')
        const open = t.empty ? `${openTag}>` : openTag
        return (
          xml.slice(run.element.start, t.start) + `${open}${escapeText(line)}</a:t>` + xml.slice(t.end, run.element.end)
        )
      }
      return brk + runXml(props, line)
    })
    .join('')
}

function runXml(props: string, text: string): string {
  return `<a:r>${props}<a:t>${escapeText(text)}</a:t></a:r>`
}

/** `a:endParaRPr` carries run properties for text typed at the end: reuse them as an `a:rPr`. */
function runPropertiesFrom(xml: string, end: XmlElement): string {
  const source = xml.slice(end.start, end.end)
  return source.replace(/^<a:endParaRPr/, '<a:rPr').replace(/<\/a:endParaRPr>$/, '</a:rPr>')
}

function newParagraph(xml: string, template: XmlElement | undefined, text: string): string {
  let pPr = ''
  let rPr = ''
  if (template) {
    const p = findFirst(xml, 'a:pPr', template.innerStart, template.innerEnd)
    if (p && children(xml, template)[0]?.start === p.start) pPr = xml.slice(p.start, p.end)
    const r = findFirst(xml, 'a:rPr', template.innerStart, template.innerEnd)
    if (r) rPr = xml.slice(r.start, r.end)
    else {
      const end = findFirst(xml, 'a:endParaRPr', template.innerStart, template.innerEnd)
      if (end) rPr = runPropertiesFrom(xml, end)
    }
  }
  const body = text
    .split(LINE_BREAK)
    .map((line, i) => (i > 0 ? `<a:br>${rPr}</a:br>` : '') + (line === '' ? '' : runXml(rPr, line)))
    .join('')
  return `<a:p>${pPr}${body}</a:p>`
}

/** A shape's place on the slide in EMU (`a:off`, `a:ext`), as the slide part or its layout gives it. */
export interface ShapeFrame {
  /** `p:cNvPr/@id`, unique within the slide. */
  readonly id: string
  readonly name: string
  readonly kind: 'text' | 'shape' | 'picture' | 'frame' | 'group' | 'connector'
  readonly x: number
  readonly y: number
  readonly cx: number
  readonly cy: number
  /** Rotated shapes are drawn rotated; their handles would not match, so they are only moved. */
  readonly rotated: boolean
}

export interface SlideFrames {
  /** `p:sldSz` in EMU. */
  readonly width: number
  readonly height: number
  readonly shapes: ShapeFrame[]
}

export type ShapeFrameOutcome =
  | { kind: 'ok'; bytes: Uint8Array; changedParts: string[] }
  | { kind: 'refused'; reason: 'no-such-slide' | 'no-such-shape' | 'bad-frame'; message: string }

const TOP_LEVEL_SHAPES: Record<string, ShapeFrame['kind']> = {
  'p:sp': 'shape',
  'p:pic': 'picture',
  'p:graphicFrame': 'frame',
  'p:grpSp': 'group',
  'p:cxnSp': 'connector',
}
/** ECMA-376 ST_Coordinate bounds: a frame outside them would make the part invalid. */
const MAX_COORDINATE = 27_273_042_316_900

/** The shapes directly on the slide (not inside groups: their coordinates are the group's) with their frames. */
export async function readShapeFrames(bytes: Uint8Array, slide: number): Promise<SlideFrames> {
  const { pkg, parts } = await slideParts(bytes)
  const presentation = await mainPart(pkg)
  const presentationXml = presentation ? await pkg.text(presentation) : ''
  const size = findFirst(presentationXml, 'p:sldSz')
  const sizeAttributes = size ? attributesAt(presentationXml, size.start) : new Map<string, string>()
  const width = Number(sizeAttributes.get('cx')) || 9_144_000
  const height = Number(sizeAttributes.get('cy')) || 6_858_000
  const part = parts[slide - 1]
  if (part === undefined) return { width, height, shapes: [] }
  const xml = await pkg.text(part)
  // Placeholders without their own `a:xfrm` sit where their layout (else the master) puts them.
  const inherited = await inheritedFrames(pkg, part)
  const shapes: ShapeFrame[] = []
  for (const element of topLevelShapes(xml)) {
    const props = findFirst(xml, 'p:cNvPr', element.innerStart, element.innerEnd)
    if (!props) continue
    const attributes = attributesAt(xml, props.start)
    const hasText = element.name === 'p:sp' && findFirst(xml, 'p:txBody', element.innerStart, element.innerEnd)
    const kind = hasText ? 'text' : (TOP_LEVEL_SHAPES[element.name] ?? 'shape')
    const own = frameOf(xml, element)
    const frame = own ?? inherited.find((candidate) => candidate.matches(placeholderKey(xml, element)))?.frame
    if (!frame) continue
    shapes.push({ id: attributes.get('id') ?? '', name: attributes.get('name') ?? '', kind, ...frame })
  }
  return { width, height, shapes }
}

/**
 * Moves or resizes one shape directly on the slide: its `a:off`/`a:ext` (or `p:xfrm` of a graphic
 * frame) in that slide part only; a placeholder that inherited its place gets its own `a:xfrm`.
 * Rotation and flips stay as written.
 */
export async function setShapeFrame(
  bytes: Uint8Array,
  edit: { slide: number; shapeId: string; x: number; y: number; cx: number; cy: number },
): Promise<ShapeFrameOutcome> {
  const values = [edit.x, edit.y, edit.cx, edit.cy].map((v) => Math.round(v))
  const [x = 0, y = 0, cx = 0, cy = 0] = values
  if (values.some((v) => !Number.isFinite(v) || Math.abs(v) > MAX_COORDINATE) || cx < 1 || cy < 1) {
    return { kind: 'refused', reason: 'bad-frame', message: 'A shape needs a finite position and a positive size.' }
  }
  const { pkg, parts } = await slideParts(bytes)
  const part = parts[edit.slide - 1]
  if (part === undefined)
    return { kind: 'refused', reason: 'no-such-slide', message: `There is no slide ${edit.slide}.` }
  const xml = await pkg.text(part)
  const element = topLevelShapes(xml).find((shape) => {
    const props = findFirst(xml, 'p:cNvPr', shape.innerStart, shape.innerEnd)
    return props !== undefined && attributesAt(xml, props.start).get('id') === edit.shapeId
  })
  if (!element) {
    return {
      kind: 'refused',
      reason: 'no-such-shape',
      message: `Slide ${edit.slide} has no shape with id ${edit.shapeId}.`,
    }
  }
  const off = `<a:off x="${x}" y="${y}"/>`
  const ext = `<a:ext cx="${cx}" cy="${cy}"/>`
  const xfrm = xfrmOf(xml, element)
  let splices: Splice[]
  if (xfrm && !xfrm.empty) {
    const oldOff = findFirst(xml, 'a:off', xfrm.innerStart, xfrm.innerEnd)
    const oldExt = findFirst(xml, 'a:ext', xfrm.innerStart, xfrm.innerEnd)
    splices =
      oldOff && oldExt
        ? [
            { start: oldOff.start, end: oldOff.end, text: off },
            { start: oldExt.start, end: oldExt.end, text: ext },
          ]
        : [{ start: xfrm.innerStart, end: xfrm.innerEnd, text: off + ext }]
  } else {
    const tag = element.name === 'p:graphicFrame' ? 'p:xfrm' : 'a:xfrm'
    const whole = `<${tag}>${off}${ext}</${tag}>`
    if (xfrm) splices = [{ start: xfrm.start, end: xfrm.end, text: whole }]
    else {
      const container = shapeProperties(xml, element)
      if (!container) {
        return {
          kind: 'refused',
          reason: 'bad-frame',
          message: `Shape ${edit.shapeId} has no shape properties to place.`,
        }
      }
      // `a:xfrm` is the first child of `p:spPr` (CT_ShapeProperties); an empty `<p:spPr/>` opens up.
      splices = container.empty
        ? [{ start: container.start, end: container.end, text: `<${container.name}>${whole}</${container.name}>` }]
        : [{ start: container.innerStart, end: container.innerStart, text: whole }]
    }
  }
  const updated = applySplices(xml, splices)
  if (updated === xml) return { kind: 'ok', bytes, changedParts: [] }
  return { kind: 'ok', bytes: await pkg.rewrite(new Map([[part, updated]])), changedParts: [part] }
}

function topLevelShapes(xml: string): XmlElement[] {
  const tree = findFirst(xml, 'p:spTree')
  if (!tree) return []
  return children(xml, tree).filter((child) => child.name in TOP_LEVEL_SHAPES)
}

function shapeProperties(xml: string, element: XmlElement): XmlElement | undefined {
  const name = element.name === 'p:grpSp' ? 'p:grpSpPr' : 'p:spPr'
  return children(xml, element).find((child) => child.name === name)
}

function xfrmOf(xml: string, element: XmlElement): XmlElement | undefined {
  if (element.name === 'p:graphicFrame') return children(xml, element).find((child) => child.name === 'p:xfrm')
  const properties = shapeProperties(xml, element)
  if (!properties || properties.empty) return undefined
  return children(xml, properties).find((child) => child.name === 'a:xfrm')
}

function frameOf(
  xml: string,
  element: XmlElement,
): { x: number; y: number; cx: number; cy: number; rotated: boolean } | undefined {
  const xfrm = xfrmOf(xml, element)
  if (!xfrm || xfrm.empty) return undefined
  const off = findFirst(xml, 'a:off', xfrm.innerStart, xfrm.innerEnd)
  const ext = findFirst(xml, 'a:ext', xfrm.innerStart, xfrm.innerEnd)
  if (!off || !ext) return undefined
  const o = attributesAt(xml, off.start)
  const e = attributesAt(xml, ext.start)
  const frame = { x: Number(o.get('x')), y: Number(o.get('y')), cx: Number(e.get('cx')), cy: Number(e.get('cy')) }
  if (!Object.values(frame).every(Number.isFinite)) return undefined
  const rotation = Number(attributesAt(xml, xfrm.start).get('rot') ?? 0)
  return { ...frame, rotated: Number.isFinite(rotation) && rotation % 21_600_000 !== 0 }
}

interface PlaceholderKey {
  readonly type: string
  readonly idx: string | undefined
}

function placeholderKey(xml: string, element: XmlElement): PlaceholderKey | undefined {
  const ph = findFirst(xml, 'p:ph', element.innerStart, element.innerEnd)
  if (!ph) return undefined
  const attributes = attributesAt(xml, ph.start)
  return { type: attributes.get('type') ?? 'obj', idx: attributes.get('idx') }
}

/** ECMA-376 §19.3.1.36: the master has title/body/date/footer/number; other kinds inherit the body's place. */
function masterType(type: string): string {
  if (type === 'ctrTitle') return 'title'
  if (type === 'title' || type === 'dt' || type === 'ftr' || type === 'sldNum') return type
  return 'body'
}

async function inheritedFrames(
  pkg: Awaited<ReturnType<typeof openPackage>>,
  slidePart: string,
): Promise<
  Array<{
    matches: (key: PlaceholderKey | undefined) => boolean
    frame: { x: number; y: number; cx: number; cy: number; rotated: boolean }
  }>
> {
  const found: Awaited<ReturnType<typeof inheritedFrames>> = []
  const layout = (await relationshipsOf(pkg, slidePart)).find((r) => r.type === 'slideLayout' && !r.external)
  if (!layout || !pkg.has(layout.target)) return found
  const layoutXml = await pkg.text(layout.target)
  const master = (await relationshipsOf(pkg, layout.target)).find((r) => r.type === 'slideMaster' && !r.external)
  const masterXml = master && pkg.has(master.target) ? await pkg.text(master.target) : ''
  const masterFrames = new Map<string, NonNullable<ReturnType<typeof frameOf>>>()
  for (const element of topLevelShapes(masterXml)) {
    const key = placeholderKey(masterXml, element)
    const frame = frameOf(masterXml, element)
    if (key && frame && !masterFrames.has(masterType(key.type))) masterFrames.set(masterType(key.type), frame)
  }
  for (const element of topLevelShapes(layoutXml)) {
    const key = placeholderKey(layoutXml, element)
    if (!key) continue
    const frame = frameOf(layoutXml, element) ?? masterFrames.get(masterType(key.type))
    if (!frame) continue
    // A slide placeholder names its layout placeholder by `idx` when it has one, else by type.
    found.push({
      matches: (wanted) =>
        wanted !== undefined &&
        (wanted.idx !== undefined ? wanted.idx === key.idx : masterType(wanted.type) === masterType(key.type)),
      frame,
    })
  }
  for (const [type, frame] of masterFrames) {
    found.push({ matches: (wanted) => wanted !== undefined && masterType(wanted.type) === type, frame })
  }
  return found
}
