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

/**
 * Bounds on what reading a package may inflate (zip bombs). They hold on the bytes that actually
 * come out of the inflater, chunk by chunk, never on the sizes an entry declares (a crafted entry
 * may declare 1 KB and inflate to gigabytes): a read stops at the first chunk that crosses one.
 */
export interface PackageLimits {
  readonly maxEntries: number
  /** Inflated bytes of one part. */
  readonly maxPartBytes: number
  /** Inflated bytes of every part read from this package together. */
  readonly maxTotalBytes: number
  /** Inflated bytes per stored byte of a part, once it is past `ratioFloorBytes`. */
  readonly maxRatio: number
  readonly ratioFloorBytes: number
}

/**
 * Defaults for the patchers (the document adapters' XLSX grid, PPTX text, DOCX scan): a real
 * workbook's sheet can be large, so a part may reach 256 MiB. The engine's inspection passes its
 * own, tighter limits (`office/inspect-limits.ts`).
 */
export const PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 20_000,
  maxPartBytes: 256 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
}

/** Which bound a package crossed; stable values, the engine reports them as `details.reason`. */
export type PackageLimit = 'too-many-parts' | 'part-bytes' | 'package-bytes' | 'compression-ratio'

export class PackageError extends Error {
  constructor(
    readonly reason: 'corrupt' | 'encrypted' | 'too-large' | 'missing-part' | 'unsupported',
    message: string,
    /** For `too-large`: the bound crossed, its value, and the part being read. */
    readonly limit?: { readonly kind: PackageLimit; readonly value: number; readonly part?: string },
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

/**
 * zip.js's growing byte writer with a check before every inflated chunk is kept: throwing from
 * the write aborts the inflate stream, so a bomb costs at most one chunk past the bound.
 */
class BoundedWriter extends Uint8ArrayWriter {
  constructor(
    private readonly admit: (chunkBytes: number) => void,
    private readonly maxInitialBytes: number,
  ) {
    super()
  }

  // zip.js allocates the declared size up front; a declaration is never trusted past the bound.
  override async init(size?: number): Promise<void> {
    await super.init?.(Math.min(size ?? 0, this.maxInitialBytes))
  }

  override writeUint8Array(array: Uint8Array): Promise<void> {
    this.admit(array.length)
    return super.writeUint8Array(array)
  }
}

export async function openPackage(bytes: Uint8Array, limits: PackageLimits = PACKAGE_LIMITS): Promise<OfficePackage> {
  let entries: Entry[]
  try {
    entries = await new ZipReader(new Uint8ArrayReader(bytes)).getEntries()
  } catch (error) {
    throw new PackageError('corrupt', `The file is not a readable package (${String(error)}).`)
  }
  if (entries.length > limits.maxEntries) {
    throw new PackageError('too-large', `The package has more than ${limits.maxEntries} parts.`, {
      kind: 'too-many-parts',
      value: limits.maxEntries,
    })
  }
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
  let totalBytes = 0
  const tooLarge = (name: string, kind: PackageLimit, value: number, message: string) =>
    new PackageError('too-large', message, { kind, value, part: name })
  const read = async (name: string): Promise<Uint8Array> => {
    const entry = entryOf(name)
    const ratioBound = Math.max(limits.ratioFloorBytes, entry.compressedSize * limits.maxRatio)
    // What the entry declares is checked first (no inflating at all when it admits a bomb) …
    if (entry.uncompressedSize > limits.maxPartBytes) {
      throw tooLarge(name, 'part-bytes', limits.maxPartBytes, partMessage(name, limits.maxPartBytes))
    }
    if (entry.uncompressedSize > ratioBound) {
      throw tooLarge(name, 'compression-ratio', limits.maxRatio, ratioMessage(name, limits.maxRatio))
    }
    // … and what really comes out of the inflater is counted, since a declaration may lie.
    let partBytes = 0
    const admit = (chunkBytes: number) => {
      partBytes += chunkBytes
      totalBytes += chunkBytes
      if (partBytes > limits.maxPartBytes) {
        throw tooLarge(name, 'part-bytes', limits.maxPartBytes, partMessage(name, limits.maxPartBytes))
      }
      if (partBytes > ratioBound) {
        throw tooLarge(name, 'compression-ratio', limits.maxRatio, ratioMessage(name, limits.maxRatio))
      }
      if (totalBytes > limits.maxTotalBytes) {
        throw tooLarge(
          name,
          'package-bytes',
          limits.maxTotalBytes,
          `The document's parts expand to more than ${mebibytes(limits.maxTotalBytes)} MiB together.`,
        )
      }
    }
    try {
      return await entry.getData(new BoundedWriter(admit, limits.maxPartBytes), { checkSignature: true })
    } catch (error) {
      if (error instanceof PackageError) throw error
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

function mebibytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024)
}

function partMessage(name: string, limit: number): string {
  return `The part "${name}" expands beyond ${mebibytes(limit)} MiB.`
}

function ratioMessage(name: string, ratio: number): string {
  return `The part "${name}" expands more than ${ratio} times its stored size.`
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
