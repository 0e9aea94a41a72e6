import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Disposable } from '../../../shared/disposable'
import type { ReadingConversionOutcome } from '../../../shared/office/reading-conversion'
import type { OfficeFormat } from '../../../shared/protocol'
import { FAMILY_OF, formatFromName, OOXML_OF } from './formats'
import { INSPECT_LIMITS, type InspectLimits } from './inspect'
import { createInspectRunner, type InspectRunner } from './inspect-runner'
import type { Converter } from './libreoffice/converter'

/** The OOXML format a converted copy is read as. */
type ReadingFormat = Extract<ReadingConversionOutcome, { kind: 'converted' }>['format']

export interface ReadingConversionRequest {
  readonly bytes: Uint8Array
  /** The file's extension, lower case, without the dot: it says which files are converted at all. */
  readonly extension: string
  /** Wall time from the ask: inspection and waiting behind another conversion included. */
  readonly timeoutMs: number
  readonly maxInputBytes: number
  readonly maxOutputBytes: number
}

export interface ReadingConverter extends Disposable {
  convert(request: ReadingConversionRequest): Promise<ReadingConversionOutcome>
}

export interface ReadingConverterOptions {
  /** The page-faithful engine of the Office module (native LibreOffice, else the pack), or none. */
  readonly engine: () => Promise<Converter | undefined>
  /** A folder private to the engine; each conversion stages in its own folder below it, always removed. */
  readonly workDir: string
  /** The Office inspection's bounds (the same knob as the Office module's). */
  readonly inspectLimits?: Partial<InspectLimits> | undefined
}

/** A format converted for reading, and the OOXML format of its family; null for OOXML, CSV, unknown. */
function readingFormatsOf(format: OfficeFormat | null): { source: OfficeFormat; target: ReadingFormat } | null {
  if (format === null || format === 'csv' || format === 'docx' || format === 'xlsx' || format === 'pptx') return null
  const target = OOXML_OF[FAMILY_OF[format]]
  return target === 'docx' || target === 'xlsx' || target === 'pptx' ? { source: format, target } : null
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`
const mebibytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`

type Failed = Extract<ReadingConversionOutcome, { kind: 'failed' }>
const failed = (reason: Failed['reason'], message: string): Failed => ({ kind: 'failed', reason, message })
/** An inspection's sentence as the clause the documents module puts after "could not be converted for reading:". */
const clause = (sentence: string) => sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/\.$/, '')

/**
 * Converts an ODF or legacy Office document (odt/doc → docx, ods/xls → xlsx, odp/ppt → pptx) with
 * the page-faithful engine so the agent's `read` can show it. As before a preview, the bytes are
 * first inspected in the bounded inspection worker (a compression bomb, a password, a file that is
 * not what its name says never reach LibreOffice), and the real format found there names the staged
 * copy. The copy lives in a private folder that is removed whatever happens; the project is never
 * touched. Bounded by input and output size and by wall time: a conversion still running at the
 * bound is cancelled (its process ended), not left to finish unseen.
 */
export function createReadingConverter(options: ReadingConverterOptions): ReadingConverter {
  let inspector: InspectRunner | undefined
  let disposed = false

  async function convert(request: ReadingConversionRequest): Promise<ReadingConversionOutcome> {
    if (readingFormatsOf(formatFromName(`file.${request.extension}`)) === null) {
      return failed('unsupported', `a .${request.extension} file is not converted for reading`)
    }
    const engine = disposed ? undefined : await options.engine()
    if (!engine) return { kind: 'no-engine' }
    if (request.bytes.byteLength > request.maxInputBytes) {
      return failed(
        'too-large',
        `it is larger than the ${mebibytes(request.maxInputBytes)} that is converted for reading`,
      )
    }
    const deadline = Date.now() + request.timeoutMs
    inspector ??= createInspectRunner({ ...INSPECT_LIMITS, ...options.inspectLimits })
    const inspected = await inspector.inspect(`source.${request.extension}`, Buffer.from(request.bytes))
    if (inspected.kind === 'refused') return failed('too-large', clause(inspected.message))
    const inspection = inspected.inspection
    if (inspection.state === 'password-protected') return failed('password', 'it is protected with a password')
    if (inspection.state === 'corrupt') return failed('damaged', clause(inspection.message))
    if (inspection.state === 'unsupported') return failed('unsupported', clause(inspection.message))
    // The content decides: a ".doc" that is really RTF is staged as RTF; one that is really OOXML
    // is not converted (the name lies, and the caller's sniff already refused it as a document).
    const formats = readingFormatsOf(inspection.format)
    if (formats === null) {
      return failed('unsupported', `its content is ${inspection.format.toUpperCase()}, not an ODF or legacy document`)
    }
    const remainingMs = deadline - Date.now()
    if (remainingMs <= 0)
      return failed('timeout', `LibreOffice did not convert it within ${seconds(request.timeoutMs)}`)
    await mkdir(options.workDir, { recursive: true, mode: 0o700 })
    const dir = await mkdtemp(join(options.workDir, 'read-'))
    const cancel = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      // A plain ASCII name with the format's own extension, as the Office module stages a preview:
      // LibreOffice picks its import filter from the content, the pack from this extension.
      const input = join(dir, `source.${formats.source}`)
      const output = join(dir, `converted.${formats.target}`)
      await writeFile(input, request.bytes, { mode: 0o600 })
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), remainingMs)
      })
      const outcome = await Promise.race([
        engine.convert({ input, output, target: formats.target, timeoutMs: remainingMs, signal: cancel.signal }),
        late,
      ])
      if (outcome === 'late' || (outcome.kind === 'failed' && outcome.reason === 'timeout')) {
        cancel.abort()
        return failed('timeout', `LibreOffice did not convert it within ${seconds(request.timeoutMs)}`)
      }
      if (outcome.kind === 'failed') {
        switch (outcome.reason) {
          case 'password':
            return failed('password', 'it is protected with a password')
          case 'load-failed':
            return failed('damaged', 'LibreOffice could not open it; it may be damaged')
          case 'wrong-family':
            return failed('unsupported', outcome.message)
          default:
            return failed('failed', `LibreOffice failed: ${outcome.message}`)
        }
      }
      const size = (await stat(output)).size
      if (size > request.maxOutputBytes) {
        return failed('too-large', `its converted copy is larger than ${mebibytes(request.maxOutputBytes)}`)
      }
      return { kind: 'converted', bytes: await readFile(output), format: formats.target }
    } finally {
      clearTimeout(timer)
      await rm(dir, { recursive: true, force: true })
    }
  }

  return {
    convert,
    dispose() {
      disposed = true
      inspector?.dispose()
    },
  }
}
