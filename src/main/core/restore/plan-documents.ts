import { LRUCache } from 'lru-cache'
import { countsOf, type DocumentCounts, type DocumentDiff } from '../../../shared/protocol'
import { extensionOf, mayBeDocument, sniffDocument, type DocumentDiffOutcome, type DocumentsModule } from '../documents'
import type { PlannedRestore } from './plan'

/**
 * Decision: a restore preview's document diffs get 3 s together, as an approval card's do (the
 * person waits for the preview the same way). A document past it shows its path alone (counts and
 * diff null); its diff keeps running in the documents worker and lands in the cache, so the next
 * preview of the same restore shows it.
 */
export const RESTORE_DOCUMENT_BUDGET_MS = 3_000
/**
 * Decision: the diffs one preview carries are bounded in bytes too (a rewind over a folder of
 * reports): past 4 MiB of diff, a document keeps its counts and its diff is left out (null); the
 * person sees every change in Review.
 */
export const RESTORE_DOCUMENT_DIFF_CHARS = 4 * 1024 * 1024

export interface PlanDocument {
  readonly path: string
  readonly counts: DocumentCounts | null
  readonly diff: DocumentDiff | null
}

/** Document diffs by content pair: a pair's diff never changes, so repeated previews share it. */
export interface RestoreDocumentDiffs {
  /** What changes inside each document the plan writes, within `budgetMs` for the whole plan. */
  of(planned: PlannedRestore, budgetMs?: number): Promise<PlanDocument[]>
}

type Side = { readonly digest: string; readonly bytes: Buffer } | null

export function createRestoreDocumentDiffs(documents: DocumentsModule): RestoreDocumentDiffs {
  // Small: a diff is a few KiB to a few hundred KiB of JSON; 32 covers the documents of a preview.
  const cache = new LRUCache<string, Promise<DocumentDiffOutcome>>({ max: 32 })
  const diffOf = (path: string, before: Side, after: Side): Promise<DocumentDiffOutcome> => {
    // The kind is decided by content and extension, so the extension is part of the key.
    const key = `${extensionOf(path)}|${before?.digest ?? 'absent'}:${after?.digest ?? 'absent'}`
    const cached = cache.get(key)
    if (cached) return cached
    // The worker's own time limit, not the preview's: a diff the preview stopped waiting for
    // finishes for the next one.
    const computed = documents.diff(path, before?.bytes ?? null, after?.bytes ?? null)
    cache.set(key, computed)
    // A failure or a timeout is not remembered: the next preview tries again.
    computed.then(
      (outcome) => {
        if (outcome.kind === 'unreadable' && outcome.reason === 'timeout') cache.delete(key)
      },
      () => cache.delete(key),
    )
    return computed
  }

  return {
    async of(planned, budgetMs = RESTORE_DOCUMENT_BUDGET_MS) {
      // An unavailable plan writes nothing, so nothing changes inside any document.
      if (planned.status === 'unavailable') return []
      const deadline = Date.now() + budgetMs
      let diffChars = 0
      const out: PlanDocument[] = []
      for (const action of planned.actions) {
        // The restore's "before" is what the path holds now (as the preflight read it); its
        // "after" is the bytes the restore writes there.
        const disk = planned.evidence.disks.get(action.path)
        const before: Side = disk?.kind === 'regular' ? { digest: disk.digest, bytes: disk.bytes } : null
        const targetBytes = action.target.kind === 'regular' ? planned.evidence.targets.get(action.path) : undefined
        const after: Side =
          action.target.kind === 'regular' && targetBytes !== undefined
            ? { digest: action.target.digest, bytes: targetBytes }
            : null
        if (!isDocument(action.path, before, after)) continue
        const targetMissing = action.target.kind === 'regular' && targetBytes === undefined
        const diskMissing = disk === undefined && action.expected.kind === 'regular'
        if (targetMissing || diskMissing || (before === null && after === null)) {
          // Unavailable, or a path the preflight could not read: nothing to compare.
          out.push({ path: action.path, counts: null, diff: null })
          continue
        }
        const diff = await within(diffOf(action.path, before, after), deadline)
        if (diff === null) {
          out.push({ path: action.path, counts: null, diff: null })
          continue
        }
        const size = JSON.stringify(diff).length
        diffChars += size
        out.push({
          path: action.path,
          counts: countsOf(diff),
          diff: diffChars <= RESTORE_DOCUMENT_DIFF_CHARS ? diff : null,
        })
      }
      return out
    },
  }
}

/**
 * As approvals decide it: the content names the document (a `%PDF-` under any name, a ZIP under
 * an OOXML name, an encrypted package, whose diff is then null); with no bytes on either side, the
 * name does.
 */
function isDocument(path: string, before: Side, after: Side): boolean {
  const sides = [before, after].filter((side): side is NonNullable<Side> => side !== null)
  if (sides.length === 0) return mayBeDocument(path)
  return sides.some((side) => {
    const sniffed = sniffDocument(path, side.bytes)
    return sniffed.kind === 'document' || sniffed.kind === 'encrypted'
  })
}

/** The diff if it lands before the deadline; null past it, or when the document cannot be read. */
async function within(job: Promise<DocumentDiffOutcome>, deadline: number): Promise<DocumentDiff | null> {
  const left = deadline - Date.now()
  if (left <= 0) return null
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), left)
  })
  try {
    const outcome = await Promise.race([job.catch(() => null), late])
    return outcome !== null && outcome !== 'late' && outcome.kind === 'diff' ? outcome.diff : null
  } finally {
    clearTimeout(timer)
  }
}
