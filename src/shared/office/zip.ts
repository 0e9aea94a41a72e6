import {
  configure,
  Uint8ArrayReader,
  Uint8ArrayWriter,
  ZipReader,
  ZipWriter,
  type Entry,
  type FileEntry,
} from '@zip.js/zip.js'

// Office packages are small enough to (de)compress inline; no worker scripts in either environment.
configure({ useWebWorkers: false })

/** Bounds on what a package may expand to before a patcher reads it (zip bombs). */
export const PACKAGE_LIMITS = { maxEntries: 20_000, maxPartBytes: 256 * 1024 * 1024, maxRatio: 200 }

export class PackageError extends Error {
  constructor(
    readonly reason: 'corrupt' | 'encrypted' | 'too-large' | 'missing-part' | 'unsupported',
    message: string,
  ) {
    super(message)
  }
}

/** An OOXML/ODF package opened for reading, entries in their original order. */
export interface OfficePackage {
  readonly names: readonly string[]
  has(name: string): boolean
  bytes(name: string): Promise<Uint8Array>
  text(name: string): Promise<string>
  /** `null` when the part does not exist. */
  textOrNull(name: string): Promise<string | null>
  /** The original bytes with `changes` applied: `null` removes a part, untouched parts keep their compressed bytes. */
  rewrite(changes: ReadonlyMap<string, Uint8Array | string | null>): Promise<Uint8Array>
}

export async function openPackage(bytes: Uint8Array): Promise<OfficePackage> {
  let entries: Entry[]
  try {
    entries = await new ZipReader(new Uint8ArrayReader(bytes)).getEntries()
  } catch (error) {
    throw new PackageError('corrupt', `The file is not a readable package (${String(error)}).`)
  }
  if (entries.length > PACKAGE_LIMITS.maxEntries) throw new PackageError('too-large', 'The package has too many parts.')
  const files = new Map<string, FileEntry>()
  for (const entry of entries) {
    if (entry.directory) continue
    if (entry.encrypted) throw new PackageError('encrypted', 'The package parts are encrypted.')
    files.set(entry.filename, entry)
  }
  const entryOf = (name: string): FileEntry => {
    const entry = files.get(name)
    if (!entry) throw new PackageError('missing-part', `The package has no part "${name}".`)
    return entry
  }
  const read = async (name: string): Promise<Uint8Array> => {
    const entry = entryOf(name)
    if (
      entry.uncompressedSize > PACKAGE_LIMITS.maxPartBytes ||
      entry.uncompressedSize > Math.max(1024 * 1024, entry.compressedSize * PACKAGE_LIMITS.maxRatio)
    ) {
      throw new PackageError('too-large', `The part "${name}" expands beyond the limits.`)
    }
    try {
      return await entry.getData(new Uint8ArrayWriter(), { checkSignature: true })
    } catch (error) {
      throw new PackageError('corrupt', `The part "${name}" cannot be read (${String(error)}).`)
    }
  }
  const decoder = new TextDecoder('utf-8')
  return {
    names: [...files.keys()],
    has: (name) => files.has(name),
    bytes: read,
    text: async (name) => decoder.decode(await read(name)),
    textOrNull: async (name) => (files.has(name) ? decoder.decode(await read(name)) : null),
    async rewrite(changes) {
      const writer = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false })
      const encoder = new TextEncoder()
      for (const entry of entries) {
        if (entry.directory) {
          await writer.add(entry.filename, undefined, { directory: true, lastModDate: entry.lastModDate })
          continue
        }
        if (!changes.has(entry.filename)) {
          // The untouched part's stored bytes are copied as they are: no recompression, same CRC.
          const raw = await entry.getData(new Uint8ArrayWriter(), { passThrough: true })
          await writer.add(entry.filename, new Uint8ArrayReader(raw), { passThrough: true, entry })
          continue
        }
        const replacement = changes.get(entry.filename)
        if (replacement === null || replacement === undefined) continue
        const data = typeof replacement === 'string' ? encoder.encode(replacement) : replacement
        await writer.add(entry.filename, new Uint8ArrayReader(data), {
          level: 6,
          lastModDate: entry.lastModDate,
        })
      }
      for (const [name, replacement] of changes) {
        if (files.has(name) || replacement === null) continue
        const data = typeof replacement === 'string' ? encoder.encode(replacement) : replacement
        await writer.add(name, new Uint8ArrayReader(data), { level: 6 })
      }
      return writer.close()
    },
  }
}

/** Resolves a relationship target against the folder of the part that owns the relationship. */
export function resolvePartTarget(ownerPart: string, target: string): string {
  if (target.startsWith('/')) return normalisePart(target.slice(1))
  const folder = ownerPart.includes('/') ? ownerPart.slice(0, ownerPart.lastIndexOf('/') + 1) : ''
  return normalisePart(folder + target)
}

function normalisePart(path: string): string {
  const segments: string[] = []
  for (const segment of decodeURIComponentSafe(path).split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  return segments.join('/')
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The `.rels` part that holds the relationships of `part`. */
export function relsPartOf(part: string): string {
  const slash = part.lastIndexOf('/')
  return slash === -1 ? `_rels/${part}.rels` : `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`
}
