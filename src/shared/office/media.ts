import { localName } from './opc'
import { applySplices, attributesAt, scanTags, startTagEnd, withAttribute, type Splice } from './xml'
import { openPackage, resolvePartTarget } from './zip'

/**
 * Folds byte-identical media parts back into one. `@eigenpal/docx-editor-react` writes every
 * picture it keeps as a new media part next to the original (verified-facts "Office"), so each
 * save would grow the file by all its pictures. Relationships that pointed at a copy point at the
 * kept part again, the copies and their content-type overrides go, and every other part keeps its
 * stored bytes. `keep` lists the names to keep when there is a choice (the original file's media).
 */
export async function dedupeMedia(bytes: Uint8Array, keep: readonly string[] = []): Promise<Uint8Array> {
  const pkg = await openPackage(bytes)
  const media = pkg.names.filter((name) => /(^|\/)media\/[^/]+$/.test(name))
  if (media.length < 2) return bytes
  const contents = new Map<string, Uint8Array>()
  for (const name of media) contents.set(name, await pkg.bytes(name))
  const preferred = new Set(keep)
  // Each copy → the part that stays: the preferred name when the group has one, else the first.
  const replacement = new Map<string, string>()
  const groups: string[][] = []
  for (const name of media) {
    const data = contents.get(name) as Uint8Array
    const group = groups.find((g) => sameBytes(contents.get(g[0] as string) as Uint8Array, data))
    if (group) group.push(name)
    else groups.push([name])
  }
  for (const group of groups) {
    if (group.length < 2) continue
    const kept = group.find((name) => preferred.has(name)) ?? group[0]
    for (const name of group) if (name !== kept && kept !== undefined) replacement.set(name, kept)
  }
  if (replacement.size === 0) return bytes

  const changes = new Map<string, string | null>()
  for (const rels of pkg.names.filter((name) => name.endsWith('.rels'))) {
    const owner = ownerOf(rels)
    const xml = await pkg.text(rels)
    const splices: Splice[] = []
    for (const tag of scanTags(xml)) {
      if (tag.kind === 'close' || localName(tag.name) !== 'Relationship') continue
      const attributes = attributesAt(xml, tag.start)
      if (attributes.get('TargetMode') === 'External') continue
      const target = resolvePartTarget(owner, attributes.get('Target') ?? '')
      const kept = replacement.get(target)
      if (kept === undefined) continue
      splices.push({
        start: tag.start,
        end: startTagEnd(xml, tag.start),
        text: withAttribute(xml, tag.start, 'Target', relativeTarget(owner, kept)),
      })
    }
    if (splices.length > 0) changes.set(rels, applySplices(xml, splices))
  }
  for (const copy of replacement.keys()) changes.set(copy, null)
  const types = await pkg.textOrNull('[Content_Types].xml')
  if (types !== null) {
    const splices: Splice[] = []
    for (const tag of scanTags(types)) {
      if (tag.kind === 'close' || localName(tag.name) !== 'Override') continue
      const part = (attributesAt(types, tag.start).get('PartName') ?? '').replace(/^\//, '')
      if (!replacement.has(part)) continue
      splices.push({ start: tag.start, end: startTagEnd(types, tag.start), text: '' })
    }
    if (splices.length > 0) changes.set('[Content_Types].xml', applySplices(types, splices))
  }
  return pkg.rewrite(changes)
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** `word/_rels/document.xml.rels` → `word/document.xml`; `_rels/.rels` → the package root. */
function ownerOf(rels: string): string {
  const match = /^(.*?)_rels\/([^/]*)\.rels$/.exec(rels)
  if (!match) return ''
  return `${match[1] ?? ''}${match[2] ?? ''}`
}

/** A target relative to the owner's folder when the part lies under it, else absolute. */
function relativeTarget(owner: string, part: string): string {
  const folder = owner.includes('/') ? owner.slice(0, owner.lastIndexOf('/') + 1) : ''
  return part.startsWith(folder) ? part.slice(folder.length) : `/${part}`
}
