import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Converter } from './libreoffice/converter'
import type { ReadingConversionOutcome } from '../../../shared/office/reading-conversion'
import type { OfficeFormat } from '../../../shared/protocol'
import { FAMILY_OF, formatFromName, OOXML_OF } from './formats'

/** The OOXML format a converted copy is read as. */
type ReadingFormat = Extract<ReadingConversionOutcome, { kind: 'converted' }>['format']

export interface ReadingConversionRequest {
  readonly bytes: Uint8Array
  /** The file's extension, lower case, without the dot: it picks the family (odt → docx …). */
  readonly extension: string
  /** A folder private to the engine; each conversion stages in its own folder below it, always removed. */
  readonly workDir: string
  /** Wall time from the ask, waiting behind another conversion included. */
  readonly timeoutMs: number
  readonly maxInputBytes: number
  readonly maxOutputBytes: number
}

/**
 * The Office format a file's extension names (a template as its format: ott → odt, dot → doc) and
 * the OOXML format of its family, or null for OOXML itself, CSV or an unknown extension.
 */
function readingFormatsOf(extension: string): { source: OfficeFormat; target: ReadingFormat } | null {
  const source = formatFromName(`file.${extension}`)
  if (source === null || source === 'csv' || source === 'docx' || source === 'xlsx' || source === 'pptx') return null
  const target = OOXML_OF[FAMILY_OF[source]]
  return target === 'docx' || target === 'xlsx' || target === 'pptx' ? { source, target } : null
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`

/**
 * Converts an ODF or legacy Office document (odt/doc → docx, ods/xls → xlsx, odp/ppt → pptx)
 * with the page-faithful engine (native LibreOffice, else the WebAssembly pack) so the agent's
 * `read` can show it. The bytes are staged in a private folder that is removed whatever happens;
 * the project is never touched. Bounded by input and output size and by wall time: a conversion
 * still running at the bound is cancelled (its process ended), not left to finish unseen.
 */
export async function convertForReading(
  engine: Converter | undefined,
  request: ReadingConversionRequest,
): Promise<ReadingConversionOutcome> {
  const formats = readingFormatsOf(request.extension)
  if (formats === null) {
    return {
      kind: 'failed',
      reason: 'unsupported',
      message: `A .${request.extension} file is not converted for reading.`,
    }
  }
  if (!engine) return { kind: 'no-engine' }
  if (request.bytes.byteLength > request.maxInputBytes) {
    return {
      kind: 'failed',
      reason: 'too-large',
      message: `it is larger than the ${Math.round(request.maxInputBytes / 1024 / 1024)} MiB that is converted for reading`,
    }
  }
  await mkdir(request.workDir, { recursive: true, mode: 0o700 })
  const dir = await mkdtemp(join(request.workDir, 'read-'))
  const cancel = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    // A plain ASCII name with the format's own extension, as the Office module stages a preview:
    // LibreOffice picks its import filter from the content, the pack from this extension.
    const input = join(dir, `source.${formats.source}`)
    const output = join(dir, `converted.${formats.target}`)
    await writeFile(input, request.bytes, { mode: 0o600 })
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), request.timeoutMs)
    })
    const outcome = await Promise.race([
      engine.convert({ input, output, target: formats.target, timeoutMs: request.timeoutMs, signal: cancel.signal }),
      late,
    ])
    if (outcome === 'late' || (outcome.kind === 'failed' && outcome.reason === 'timeout')) {
      cancel.abort()
      return {
        kind: 'failed',
        reason: 'timeout',
        message: `LibreOffice did not convert it within ${seconds(request.timeoutMs)}`,
      }
    }
    if (outcome.kind === 'failed') {
      switch (outcome.reason) {
        case 'password':
          return { kind: 'failed', reason: 'password', message: 'it is protected with a password' }
        case 'load-failed':
          return { kind: 'failed', reason: 'damaged', message: 'LibreOffice could not open it; it may be damaged' }
        case 'wrong-family':
          return { kind: 'failed', reason: 'unsupported', message: outcome.message }
        default:
          return { kind: 'failed', reason: 'failed', message: `LibreOffice failed: ${outcome.message}` }
      }
    }
    const size = (await stat(output)).size
    if (size > request.maxOutputBytes) {
      return {
        kind: 'failed',
        reason: 'too-large',
        message: `its converted copy is larger than ${Math.round(request.maxOutputBytes / 1024 / 1024)} MiB`,
      }
    }
    return { kind: 'converted', bytes: await readFile(output), format: formats.target }
  } finally {
    clearTimeout(timer)
    await rm(dir, { recursive: true, force: true })
  }
}
