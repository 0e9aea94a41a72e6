import { attributesAt, scanTags } from './xml'
import { relsPartOf, resolvePartTarget, type OfficePackage } from './zip'

/** Open Packaging Conventions: relationships and the main document part. */

export interface Relationship {
  readonly id: string
  /** The type's last path segment, e.g. `officeDocument`, `worksheet`, `chart`. */
  readonly type: string
  readonly typeUri: string
  /** Resolved part name inside the package; the raw target for external relationships. */
  readonly target: string
  readonly external: boolean
}

export async function relationshipsOf(pkg: OfficePackage, ownerPart: string): Promise<Relationship[]> {
  const xml = await pkg.textOrNull(ownerPart === '' ? '_rels/.rels' : relsPartOf(ownerPart))
  if (xml === null) return []
  const found: Relationship[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close' || localName(tag.name) !== 'Relationship') continue
    const attributes = attributesAt(xml, tag.start)
    const typeUri = attributes.get('Type') ?? ''
    const target = attributes.get('Target') ?? ''
    const external = attributes.get('TargetMode') === 'External'
    found.push({
      id: attributes.get('Id') ?? '',
      type: typeUri.slice(typeUri.lastIndexOf('/') + 1),
      typeUri,
      target: external ? target : resolvePartTarget(ownerPart, target),
      external,
    })
  }
  return found
}

/** The package's main part (`word/document.xml`, `xl/workbook.xml`, `ppt/presentation.xml`). */
export async function mainPart(pkg: OfficePackage): Promise<string | undefined> {
  const root = await relationshipsOf(pkg, '')
  return root.find((r) => r.type === 'officeDocument' && !r.external)?.target
}

export function localName(name: string): string {
  const colon = name.indexOf(':')
  return colon === -1 ? name : name.slice(colon + 1)
}
