import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createGunzip } from 'node:zlib'
import { Parser, Unpack, type ReadEntry } from 'tar'
import { InstallError } from './errors'

export interface ExtractLimits {
  /** Total bytes of all files once extracted. */
  readonly maxBytes: number
  readonly maxEntries: number
  /** Extracted bytes per archive byte. */
  readonly maxRatio: number
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxBytes: 2 * 1024 * 1024 * 1024,
  maxEntries: 50_000,
  maxRatio: 20,
}

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory'])

/**
 * Why an entry may not be extracted: absolute paths (POSIX, drive letters, UNC), `..` segments,
 * backslashes, links of either kind, devices and FIFOs. One such entry refuses the whole archive —
 * a bundle is all or nothing, never "the safe part of it".
 */
export function unsafeEntry(path: string, type: string): string | undefined {
  if (!ALLOWED_TYPES.has(type)) return `"${path}" is a ${type} entry`
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) return `"${path}" is an absolute path`
  if (path.includes('\\')) return `"${path}" contains a backslash`
  if (path.includes('\0')) return `"${path}" contains a NUL byte`
  if (path.split('/').some((segment) => segment === '..')) return `"${path}" climbs out with ".."`
  return undefined
}

/**
 * The mode a bundle file or folder gets, whatever its header says: owner-writable, world-readable,
 * executable only where the archive marks it so. Setuid, setgid and sticky bits (and group/other
 * write) never reach the disk — the bundle is static web assets served read-only.
 */
export function installedMode(type: string, headerMode: number | undefined): number {
  if (type === 'Directory') return 0o755
  return (headerMode ?? 0) & 0o111 ? 0o755 : 0o644
}

/** The bytes the tar stream itself may inflate to: the files, plus their headers and padding. */
function streamBudget(fileBytes: number, limits: ExtractLimits): number {
  // Each entry costs a 512-byte header and up to 511 bytes of padding; long names and pax
  // records add a header each; the archive ends with two zero blocks and a record's padding.
  return fileBytes + (limits.maxEntries + 1) * 2048 + 64 * 1024
}

/**
 * Checks every header of the `.tar.gz` first (nothing is written), then extracts into `into` with
 * the same checks applied again. Limits hold while reading: the scan stops at the first entry that
 * would cross the byte, count or ratio limit, and at the first inflated chunk past the tar stream's
 * own budget — so a gzip bomb (trailing data, oversized pax headers) is refused after a bounded
 * amount of work, never inflated to its end. Inflating runs on zlib's thread pool in 64 KiB
 * chunks: the engine's event loop stays free throughout.
 */
export async function extractBundle(archive: string, into: string, limits: ExtractLimits): Promise<void> {
  const archiveBytes = (await stat(archive)).size
  const byteLimit = Math.min(limits.maxBytes, archiveBytes * limits.maxRatio)
  const budget = streamBudget(byteLimit, limits)
  await scan(archive, limits, byteLimit, budget)
  let violation: InstallError | undefined
  let bytes = 0
  let entries = 0
  const unpack = new Unpack({
    cwd: into,
    strict: true,
    preserveOwner: false,
    processUmask: 0o022,
    // The stream is inflated here; tar must not inflate a nested archive by itself.
    zstd: false,
    brotli: false,
    filter: (path, entry) => {
      const read = entry as ReadEntry
      const reason = unsafeEntry(path, read.type)
      bytes += read.size ?? 0
      entries++
      if (reason) violation ??= new InstallError('unsafe-entry', `The bundle was refused: ${reason}.`)
      else if (bytes > byteLimit || entries > limits.maxEntries) {
        violation ??= new InstallError('limits-exceeded', 'The bundle expands beyond the extraction limits.')
      }
      // tar opens the file with the header's mode: it is replaced before anything is created.
      read.mode = installedMode(read.type, read.mode)
      return violation === undefined
    },
  })
  const failure = await feed(archive, unpack, budget, () => violation)
  if (failure) throw failure
}

/** What the tar parser and the unpacker have in common: a minipass-style writable. */
type TarSink = Parser

/**
 * Inflates `archive` into `sink` with backpressure and a byte budget, stopping at the first chunk
 * after `refused()` names a reason. Resolves once the sink has closed (every file written) with
 * the first reason the work stopped for — the sink is ended either way, so no write is left
 * running behind the caller.
 */
async function feed(
  archive: string,
  sink: TarSink,
  budget: number,
  refused: () => InstallError | undefined,
): Promise<InstallError | undefined> {
  let failure: InstallError | undefined
  const fail = (error: InstallError) => (failure ??= error)
  const closed = new Promise<void>((resolve) => {
    sink.on('close', () => resolve())
    sink.on('error', (error: Error) => {
      fail(new InstallError('manifest-invalid', `The bundle is not a valid .tar.gz (${error.message}).`))
      resolve()
    })
  })
  // Past the end-of-archive blocks tar keeps whatever arrives by concatenating it into one buffer
  // (quadratic in its length): what follows the end is only counted against the budget.
  let endOfArchive = false
  sink.on('eof', () => (endOfArchive = true))
  const input = createReadStream(archive, { highWaterMark: 64 * 1024 })
  const gunzip = createGunzip({ chunkSize: 64 * 1024 })
  input.on('error', (error) => gunzip.destroy(error))
  input.pipe(gunzip)
  let inflated = 0
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      if (inflated === 0 && (hasPrefix(chunk, GZIP_MAGIC) || hasPrefix(chunk, ZSTD_MAGIC))) {
        fail(new InstallError('manifest-invalid', 'The bundle is a compressed archive inside a compressed archive.'))
        break
      }
      inflated += chunk.length
      if (inflated > budget) {
        fail(
          new InstallError(
            'limits-exceeded',
            `The bundle inflates to more than ${budget} bytes; extraction stopped there.`,
          ),
        )
        break
      }
      if (failure || refused()) break
      if (endOfArchive) continue
      if (!sink.write(chunk)) await Promise.race([once(sink, 'drain'), closed])
      if (refused()) break
    }
  } catch (error) {
    fail(new InstallError('manifest-invalid', `The bundle is not a valid .tar.gz (${(error as Error).message}).`))
  } finally {
    input.destroy()
    gunzip.destroy()
  }
  // The checks' own reason comes first: a parser ended mid-entry also complains of a truncated archive.
  const stopped = refused()
  if (stopped) failure = stopped
  sink.end()
  await closed
  return refused() ?? failure
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b])
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

function hasPrefix(chunk: Buffer, prefix: Buffer): boolean {
  return chunk.length >= prefix.length && chunk.subarray(0, prefix.length).equals(prefix)
}

async function scan(archive: string, limits: ExtractLimits, byteLimit: number, budget: number): Promise<void> {
  let bytes = 0
  let entries = 0
  let refusal: InstallError | undefined
  const parser = new Parser({
    strict: true,
    zstd: false,
    brotli: false,
    onReadEntry: (entry: ReadEntry) => {
      if (refusal) return entry.resume()
      const reason = unsafeEntry(entry.path, entry.type)
      bytes += entry.size ?? 0
      entries++
      if (reason) refusal = new InstallError('unsafe-entry', `The bundle was refused: ${reason}.`)
      else if (bytes > byteLimit) {
        refusal = new InstallError(
          'limits-exceeded',
          `The bundle expands to more than ${byteLimit} bytes (limits: ${limits.maxBytes} bytes, ${limits.maxRatio}× the archive).`,
        )
      } else if (entries > limits.maxEntries) {
        refusal = new InstallError('limits-exceeded', `The bundle holds more than ${limits.maxEntries} entries.`)
      }
      entry.resume()
    },
  })
  // tar skips a pax or long-name header over 1 MiB in silence; its body is still inflated — a
  // bomb's favourite place. Such a header refuses the bundle at once.
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    refusal ??= new InstallError(
      'limits-exceeded',
      `The bundle has a ${entry.size ?? 0}-byte ${entry.type} header; extraction stopped there.`,
    )
  })
  // A refusal stops the feed at the next chunk: the parser is ended, nothing more is inflated.
  const failure = await feed(archive, parser, budget, () => refusal)
  if (failure) throw failure
}
