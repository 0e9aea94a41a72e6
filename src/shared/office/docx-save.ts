import { mainPart, relationshipsOf } from './opc'
import { elementAt, findFirst, scanTags, type XmlElement } from './xml'
import { openPackage } from './zip'

/**
 * Repairs two things `@eigenpal/docx-editor-react` 1.9 writes on its own save (and only there),
 * both measured in e2e/office-docx-fidelity.test.ts:
 * - A run that starts with Word's `w:lastRenderedPageBreak` marker comes back as
 *   `<w:r><w:lastRenderedPageBreak/><w:rPr>…` once the editor adds run properties (a heading whose
 *   style sets them); `w:rPr` must be a run's first child, and Word reports such a file as
 *   unreadable content. The run properties are moved first.
 * - A page break inside a paragraph (`…text<w:br w:type="page"/></w:p>`, where Word and
 *   LibreOffice put a manual break) is split out into a paragraph of its own. In Word that
 *   paragraph's mark lands on the next page as an empty line, and before a heading that itself
 *   starts a new page (`w:pageBreakBefore`) it makes a blank page. The break goes back to the end
 *   of the paragraph before it. The editor writes such a paragraph without an id; when the
 *   original document already has one of exactly that form, none is touched (it may be the
 *   person's own), and never across a section break.
 * Parts that need neither are not rewritten.
 */

const STORY_TYPES = new Set(['header', 'footer', 'footnotes', 'endnotes'])

export async function normaliseEditorSave(bytes: Uint8Array, original: Uint8Array): Promise<Uint8Array> {
  const pkg = await openPackage(bytes)
  const before = await openPackage(original)
  const document = await mainPart(pkg)
  if (document === undefined || !pkg.has(document)) return bytes
  const rels = await relationshipsOf(pkg, document)
  const parts = [document, ...rels.filter((r) => STORY_TYPES.has(r.type) && !r.external).map((r) => r.target)]
  const changes = new Map<string, string>()
  for (const part of new Set(parts)) {
    if (!pkg.has(part)) continue
    const xml = await pkg.text(part)
    const originalXml = (await before.textOrNull(part)) ?? ''
    const fixed = rejoinPageBreaks(runPropertiesFirst(xml), originalXml)
    if (fixed !== xml) changes.set(part, fixed)
  }
  return changes.size === 0 ? bytes : pkg.rewrite(changes)
}

/** `xml` with every `w:rPr` that is a run's child but not its first moved to the front of it. */
export function runPropertiesFirst(xml: string): string {
  const moves: { run: XmlElement; properties: XmlElement }[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind !== 'open' || tag.name !== 'w:r') continue
    const run = elementAt(xml, tag)
    let first = true
    let at = run.innerStart
    while (at < run.innerEnd) {
      const child = nextChild(xml, at, run.innerEnd)
      if (!child) break
      if (child.name === 'w:rPr') {
        if (!first) moves.push({ run, properties: child })
        break
      }
      first = false
      at = child.end
    }
  }
  let out = xml
  for (const { run, properties } of moves.reverse()) {
    const text = out.slice(properties.start, properties.end)
    out = out.slice(0, run.innerStart) + text + out.slice(run.innerStart, properties.start) + out.slice(properties.end)
  }
  return out
}

function nextChild(xml: string, from: number, to: number): XmlElement | undefined {
  for (const tag of scanTags(xml, from, to)) {
    if (tag.kind === 'close') return undefined
    return elementAt(xml, tag, to)
  }
  return undefined
}

const BREAK_PARAGRAPH = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
const BREAK_RUN = '<w:r><w:br w:type="page"/></w:r>'
const PARAGRAPH_END = '</w:p>'

/** `saved` with each page-break paragraph the editor split out put back into the paragraph before. */
export function rejoinPageBreaks(saved: string, original: string): string {
  if (original.includes(BREAK_PARAGRAPH)) return saved
  let out = saved
  let from = 0
  for (;;) {
    const at = out.indexOf(BREAK_PARAGRAPH, from)
    if (at === -1) return out
    from = at + BREAK_PARAGRAPH.length
    const previous = out.endsWith(PARAGRAPH_END, at) ? paragraphEndingAt(out, at) : undefined
    if (!previous) continue
    const properties = findFirst(out, 'w:pPr', previous.innerStart, previous.innerEnd)
    if (properties && findFirst(out, 'w:sectPr', properties.innerStart, properties.innerEnd)) continue
    // The editor leaves an empty run where the break was.
    let inner = out.slice(previous.innerStart, previous.innerEnd)
    if (inner.endsWith('<w:r></w:r>')) inner = inner.slice(0, -'<w:r></w:r>'.length)
    const rejoined = inner + BREAK_RUN
    out = out.slice(0, previous.innerStart) + rejoined + out.slice(previous.innerEnd, at) + out.slice(from)
    from = previous.innerStart + rejoined.length
  }
}

/** The `w:p` element ending exactly at `end` (its `</w:p>` just before), looking back a bounded way. */
function paragraphEndingAt(xml: string, end: number): XmlElement | undefined {
  let at = end
  // Paragraphs nested in the one we look for (a text box's) end earlier; a few are stepped over.
  for (let tries = 0; tries < 64; tries++) {
    const start = xml.lastIndexOf('<w:p', at - 1)
    if (start === -1) return undefined
    at = start
    const next = xml.charAt(start + 4)
    if (next !== '>' && next !== ' ' && next !== '/') continue
    const tag = scanTags(xml, start).next()
    if (tag.done || tag.value.name !== 'w:p' || tag.value.kind !== 'open') continue
    try {
      const element = elementAt(xml, tag.value, end)
      if (element.end === end) return element
    } catch {
      // An ancestor (the break is inside a text box): not a paragraph before it.
      return undefined
    }
  }
  return undefined
}
