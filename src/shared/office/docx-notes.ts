import { mainPart, relationshipsOf } from './opc'
import { attributesAt, scanTags, withAttribute } from './xml'
import { openPackage, type OfficePackage } from './zip'

/**
 * Footnote and endnote ids as Word numbers the notes. `@eigenpal/docx-editor-react` shows a note
 * reference as its `w:id`, which is an internal key: Word writes ids that happen to match its
 * numbering (separators at -1 and 0, notes from 1), LibreOffice puts its separators at 0 and 1
 * so its first note reads "2", and a document whose notes were deleted or moved shows gaps and
 * disorder. Before the editor sees the package, the ids are rewritten so the n-th note referenced
 * in the document (in reading order) has id n; the separators and notes nobody numbers get ids
 * of 0 and below (kept when they already are). Ids are keys only (references, note parts and
 * the separators named in settings change together), so Word and LibreOffice render the same.
 *
 * Not modelled (a known gap): `w:numStart`, restarting per section or page and number formats
 * other than decimal; a reference with a custom mark (`w:customMarkFollows`) is not counted, as
 * in Word.
 */

export type NoteRenumbering =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'renumbered'; readonly bytes: Uint8Array; readonly footnotes: number; readonly endnotes: number }

interface NoteKind {
  readonly rel: 'footnotes' | 'endnotes'
  readonly reference: string
  readonly note: string
  readonly properties: string
}

const KINDS: readonly NoteKind[] = [
  { rel: 'footnotes', reference: 'w:footnoteReference', note: 'w:footnote', properties: 'w:footnotePr' },
  { rel: 'endnotes', reference: 'w:endnoteReference', note: 'w:endnote', properties: 'w:endnotePr' },
]

export async function numberNotesAsWord(bytes: Uint8Array): Promise<NoteRenumbering> {
  return numberNotesInPackage(await openPackage(bytes))
}

export async function numberNotesInPackage(pkg: OfficePackage): Promise<NoteRenumbering> {
  const document = await mainPart(pkg)
  if (document === undefined || !pkg.has(document)) return { kind: 'unchanged' }
  const rels = await relationshipsOf(pkg, document)
  const settings = rels.find((r) => r.type === 'settings' && !r.external)?.target
  const texts = new Map<string, string>()
  const read = async (part: string) => {
    const known = texts.get(part)
    if (known !== undefined) return known
    const text = await pkg.text(part)
    texts.set(part, text)
    return text
  }

  const changes = new Map<string, string>()
  const counts = { footnotes: 0, endnotes: 0 }
  for (const kind of KINDS) {
    const notesPart = rels.find((r) => r.type === kind.rel && !r.external)?.target
    if (notesPart === undefined || !pkg.has(notesPart)) continue
    const documentXml = changes.get(document) ?? (await read(document))
    const notesXml = await read(notesPart)

    const referenced = new Set<string>()
    for (const tag of scanTags(documentXml)) {
      if (tag.kind === 'close' || tag.name !== kind.reference) continue
      const attributes = attributesAt(documentXml, tag.start)
      const id = attributes.get('w:id')
      if (id === undefined || isOn(attributes.get('w:customMarkFollows'))) continue
      referenced.add(id)
    }
    const mapping = new Map<string, string>([...referenced].map((id, index) => [id, String(index + 1)]))
    // Notes nobody numbers (separators, custom marks, orphans) keep an id of 0 or below when
    // they have one (Word's -1 and 0 stay), else take the next free one counting down from 0.
    const unnumbered = new Set<string>()
    for (const tag of scanTags(notesXml)) {
      if (tag.kind === 'close' || tag.name !== kind.note) continue
      const id = attributesAt(notesXml, tag.start).get('w:id')
      if (id !== undefined && !mapping.has(id)) unnumbered.add(id)
    }
    const taken = new Set([...unnumbered].filter((id) => /^(0|-[1-9][0-9]*)$/.test(id)))
    for (const id of taken) mapping.set(id, id)
    let spare = 0
    for (const id of unnumbered) {
      if (taken.has(id)) continue
      while (taken.has(String(spare))) spare--
      taken.add(String(spare))
      mapping.set(id, String(spare))
    }
    if ([...mapping].every(([from, to]) => from === to)) continue
    counts[kind.rel] = referenced.size

    changes.set(document, withIds(documentXml, new Set([kind.reference]), mapping))
    changes.set(notesPart, withIds(notesXml, new Set([kind.note]), mapping))
    if (settings !== undefined && pkg.has(settings)) {
      const settingsXml = changes.get(settings) ?? (await read(settings))
      changes.set(settings, withIds(settingsXml, new Set([kind.note]), mapping, kind.properties))
    }
  }
  if (changes.size === 0) return { kind: 'unchanged' }
  // A part whose ids were all already right is left out, so its bytes stay as they were.
  for (const [part, text] of changes) if (text === texts.get(part)) changes.delete(part)
  return { kind: 'renumbered', bytes: await pkg.rewrite(changes), ...counts }
}

function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'true' || value === 'on'
}

/** `xml` with the `w:id` of every `names` start tag mapped (inside `within` elements only, if given). */
function withIds(
  xml: string,
  names: ReadonlySet<string>,
  mapping: ReadonlyMap<string, string>,
  within?: string,
): string {
  const edits: { start: number; end: number; tag: string }[] = []
  let depth = 0
  for (const tag of scanTags(xml)) {
    if (within !== undefined && tag.name === within) {
      if (tag.kind === 'open') depth++
      else if (tag.kind === 'close') depth--
      continue
    }
    if (tag.kind === 'close' || !names.has(tag.name)) continue
    if (within !== undefined && depth === 0) continue
    const id = attributesAt(xml, tag.start).get('w:id')
    const to = id === undefined ? undefined : mapping.get(id)
    if (to === undefined || to === id) continue
    edits.push({ start: tag.start, end: tag.end, tag: withAttribute(xml, tag.start, 'w:id', to) })
  }
  // One pass, so a part with thousands of notes is copied once, not once per note.
  const pieces: string[] = []
  let at = 0
  for (const edit of edits) {
    pieces.push(xml.slice(at, edit.start), edit.tag)
    at = edit.end
  }
  pieces.push(xml.slice(at))
  return pieces.join('')
}
