import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Parser, x as extract, type ReadEntry } from 'tar'
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
 * Checks every header of the `.tar.gz` first (nothing is written), then extracts into `into` with
 * the same checks applied again. Limits hold while reading: the scan stops at the first entry that
 * would cross the byte, count or ratio limit.
 */
export async function extractBundle(archive: string, into: string, limits: ExtractLimits): Promise<void> {
  const archiveBytes = (await stat(archive)).size
  const byteLimit = Math.min(limits.maxBytes, archiveBytes * limits.maxRatio)
  await scan(archive, limits, byteLimit)
  let violation: InstallError | undefined
  let bytes = 0
  let entries = 0
  await extract({
    file: archive,
    cwd: into,
    strict: true,
    preserveOwner: false,
    noChmod: true,
    processUmask: 0o022,
    filter: (path, entry) => {
      const read = entry as ReadEntry
      const reason = unsafeEntry(path, read.type)
      bytes += read.size ?? 0
      entries++
      if (reason) violation ??= new InstallError('unsafe-entry', `The bundle was refused: ${reason}.`)
      else if (bytes > byteLimit || entries > limits.maxEntries) {
        violation ??= new InstallError('limits-exceeded', 'The bundle expands beyond the extraction limits.')
      }
      return violation === undefined
    },
  })
  if (violation) throw violation
}

async function scan(archive: string, limits: ExtractLimits, byteLimit: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let bytes = 0
    let entries = 0
    let failed = false
    const input = createReadStream(archive)
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (failed) return entry.resume()
        const reason = unsafeEntry(entry.path, entry.type)
        bytes += entry.size ?? 0
        entries++
        let error: InstallError | undefined
        if (reason) error = new InstallError('unsafe-entry', `The bundle was refused: ${reason}.`)
        else if (bytes > byteLimit) {
          error = new InstallError(
            'limits-exceeded',
            `The bundle expands to more than ${byteLimit} bytes (limits: ${limits.maxBytes} bytes, ${limits.maxRatio}× the archive).`,
          )
        } else if (entries > limits.maxEntries) {
          error = new InstallError('limits-exceeded', `The bundle holds more than ${limits.maxEntries} entries.`)
        }
        if (error) {
          failed = true
          input.destroy()
          reject(error)
        }
        entry.resume()
      },
    })
    parser.on('error', (error: Error) => {
      if (!failed) reject(new InstallError('manifest-invalid', `The bundle is not a valid .tar.gz (${error.message}).`))
      failed = true
    })
    parser.on('end', () => {
      if (!failed) resolve()
    })
    input.on('error', (error) => {
      if (!failed) reject(new InstallError('manifest-invalid', `The bundle cannot be read (${error.message}).`))
      failed = true
    })
    input.pipe(parser)
  })
}
