import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { fail, type ProtocolError } from '../../../shared/protocol'
import type { ReadingConversionOutcome } from '../../../shared/office/reading-conversion'
import type { OoxmlKind } from './kind'

/** The bounds one conversion for reading is asked to keep. */
export interface ReadingConversionRequest {
  readonly bytes: Uint8Array
  /** The file's extension, lower case, without the dot. */
  readonly extension: string
  readonly timeoutMs: number
  readonly maxInputBytes: number
  readonly maxOutputBytes: number
}

/**
 * The port through which the documents module asks for an ODF or legacy document in OOXML form.
 * The composition root wires it to the Office module (native LibreOffice, else the WebAssembly
 * pack); this module never imports that one (spec 01: documents sits at the bottom).
 */
export type ConvertForReading = (request: ReadingConversionRequest) => Promise<ReadingConversionOutcome>

export type ReadingCopy =
  | { kind: 'converted'; bytes: Uint8Array; format: OoxmlKind }
  | { kind: 'no-engine' }
  | { kind: 'error'; error: ProtocolError }

/** The line that opens every converted view: what the anchors are good for, and what is not possible. */
export const CONVERTED_NOTICE =
  '(converted by LibreOffice for reading; anchors are for reading only — office_edit needs a .docx/.xlsx/.pptx: convert the file first)'

function failureOf(path: string, outcome: Extract<ReadingConversionOutcome, { kind: 'failed' }>): ReadingCopy {
  const message = `"${path}" could not be converted for reading: ${outcome.message}. Nothing was written.`
  switch (outcome.reason) {
    case 'timeout':
      return { kind: 'error', error: fail('TOO_LARGE', message, { path, reason: 'time' }).error }
    case 'too-large':
      return { kind: 'error', error: fail('TOO_LARGE', message, { path, reason: 'document-limit' }).error }
    case 'password':
      return { kind: 'error', error: fail('UNSUPPORTED', message, { path, reason: 'encrypted' }).error }
    case 'damaged':
      return { kind: 'error', error: fail('INVALID_REQUEST', message, { path, reason: 'damaged' }).error }
    case 'unsupported':
      // Content that is not what the name says (a DOCX named .doc): named, not the convert-first hint.
      return { kind: 'error', error: fail('INVALID_REQUEST', message, { path, reason: 'wrong-format' }).error }
    case 'failed':
      return { kind: 'error', error: fail('UNAVAILABLE', message, { path }).error }
  }
}

export interface ReadingConversions {
  /** The OOXML copy of `bytes`, converted once per content (paging a long document does not convert again). */
  copyOf(path: string, extension: string, bytes: Uint8Array): Promise<ReadingCopy>
}

/**
 * Converted copies keyed by the content's digest and extension, in a small LRU bounded by count and
 * bytes: a model pages through a document in a few calls, and each page must not cost a LibreOffice
 * run. Failures are not kept (a timeout on a busy machine may pass next time); two reads of one
 * content at once share one conversion.
 */
export function createReadingConversions(
  convert: ConvertForReading | undefined,
  bounds: { timeoutMs: number; maxInputBytes: number; maxOutputBytes: number; cacheBytes: number },
): ReadingConversions {
  const copies = new LRUCache<string, { bytes: Uint8Array; format: OoxmlKind }>({
    max: 8,
    maxSize: bounds.cacheBytes,
    sizeCalculation: (copy) => Math.max(1, copy.bytes.byteLength),
  })
  const flights = new Map<string, Promise<ReadingConversionOutcome>>()
  return {
    async copyOf(path, extension, bytes) {
      if (!convert) return { kind: 'no-engine' }
      const key = `${extension}:${createHash('sha256').update(bytes).digest('hex')}`
      const cached = copies.get(key)
      if (cached) return { kind: 'converted', ...cached }
      let flight = flights.get(key)
      if (!flight) {
        flight = convert({
          bytes,
          extension,
          timeoutMs: bounds.timeoutMs,
          maxInputBytes: bounds.maxInputBytes,
          maxOutputBytes: bounds.maxOutputBytes,
        }).finally(() => flights.delete(key))
        flights.set(key, flight)
      }
      const outcome = await flight
      if (outcome.kind === 'no-engine') return outcome
      if (outcome.kind === 'failed') return failureOf(path, outcome)
      // Only a copy the cache can hold is kept; a larger one is still shown this once.
      if (outcome.bytes.byteLength <= bounds.cacheBytes)
        copies.set(key, { bytes: outcome.bytes, format: outcome.format })
      return outcome
    },
  }
}
