import { formatBytes, type Translate } from '../../../../i18n'
import type { OfficeInspection, ServiceOutcome } from './services'

/**
 * Why the view opens no engine on this document. The built-in editors and ONLYOFFICE unzip the
 * file themselves, in the renderer, outside the engine's inspection bounds: only a document the
 * engine inspected may reach them.
 * - `too-large`: the engine refused the package (`TOO_LARGE`: a bound of the inspection, or the
 *   64 MiB source limit). Retrying cannot help.
 * - `unchecked`: the inspection failed for another reason (the engine timed out, the connection
 *   dropped, the inspection worker died). Decision: the document is not opened unchecked — a
 *   crafted package is exactly what makes an inspection fail — and Retry asks again.
 */
export type OfficeRefusal =
  | { readonly kind: 'too-large'; readonly details: Readonly<Record<string, unknown>> | undefined }
  | { readonly kind: 'unchecked'; readonly message: string }

export type InspectionState =
  | { readonly kind: 'pending' }
  /** No engine to ask (a preview without Office services): the format comes from the name. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'inspected'; readonly inspection: OfficeInspection }
  | { readonly kind: 'refused'; readonly refusal: OfficeRefusal }

export function inspectionState(outcome: ServiceOutcome<OfficeInspection>): InspectionState {
  if (outcome.kind === 'ok') return { kind: 'inspected', inspection: outcome.result }
  if (outcome.code === 'TOO_LARGE') return { kind: 'refused', refusal: { kind: 'too-large', details: outcome.details } }
  return { kind: 'refused', refusal: { kind: 'unchecked', message: outcome.message } }
}

/** The bound the package crossed, in the person's words; the engine's details name it. */
export function tooLargeDetail(details: Readonly<Record<string, unknown>> | undefined, t: Translate): string {
  const limit = typeof details?.limit === 'number' ? details.limit : null
  const part = typeof details?.part === 'string' ? details.part : null
  switch (details?.reason) {
    case 'part-bytes':
      return part !== null && limit !== null
        ? t('office.tooLarge.partBytesNamed', { part, limit: formatBytes(limit) })
        : t('office.tooLarge.partBytes', { limit: limit === null ? '?' : formatBytes(limit) })
    case 'package-bytes':
      return t('office.tooLarge.packageBytes', { limit: limit === null ? '?' : formatBytes(limit) })
    case 'compression-ratio':
      return t('office.tooLarge.compressionRatio', { limit: limit ?? '?' })
    case 'too-many-parts':
      return t('office.tooLarge.tooManyParts', { limit: limit ?? '?' })
    case 'time':
      return t('office.tooLarge.time', { seconds: limit === null ? '?' : Math.round(limit / 1000) })
    case 'memory':
      // The worker's heap bound is given in MiB.
      return t('office.tooLarge.memory', { limit: limit === null ? '?' : formatBytes(limit * 1024 * 1024) })
    default:
      // The source file itself is over the Office size limit (no `reason`, its `size` and `limit`).
      return t('office.tooLarge.file', { limit: limit === null ? '?' : formatBytes(limit) })
  }
}
