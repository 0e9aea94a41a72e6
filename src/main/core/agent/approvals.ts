import { createTwoFilesPatch } from 'diff'
import { countsOf, type ApprovalRequest, type DocumentDiff } from '../../../shared/protocol'
import { mayBeDocument, sniffDocument, type DocumentsModule } from '../documents'
import type { PlannedChange } from '../journal'
import type { Digest } from '../store'

const utf8 = new TextDecoder('utf-8', { fatal: true })
const MAX_DIFF_CHARS = 200_000
/**
 * Decision: the whole approval card's document diffs get 3 s together. A person waits for the
 * card; a document that takes longer shows its sizes (diff null), as Review shows it when asked.
 */
export const APPROVAL_DOCUMENT_BUDGET_MS = 3_000

/** The diff line of a document: its change in words, e.g. "DOCX: +1 ¶ −0 ¶, 2 changed", "XLSX: 3 cells changed". */
function documentLine(diff: DocumentDiff): string {
  const counts = countsOf(diff)
  const unit = { paragraph: '¶', cell: 'cells', slide: 'slides', annotation: 'annotations' }[counts.unit]
  if (counts.unit === 'cell') return `XLSX: ${counts.changed} ${counts.changed === 1 ? 'cell' : 'cells'} changed`
  return `${diff.kind.toUpperCase()}: +${counts.added} ${unit} −${counts.removed} ${unit}, ${counts.changed} changed`
}

function textOf(bytes: Buffer | undefined): string | null {
  if (bytes === undefined) return ''
  try {
    const text = utf8.decode(bytes)
    return text.includes('\0') ? null : text
  } catch {
    return null
  }
}

/**
 * What the approval card shows for a file tool: one unified diff over every file the call would
 * change, and the fingerprints (each path's digest now, or null for absent) that the journal
 * re-checks before publishing (spec 03 step 3) — a file changed while waiting fails with CONFLICT.
 */
export async function describeChanges(
  changes: readonly PlannedChange[],
  /** Target path → the project file its bytes come from (write's source_path), named on the card. */
  sources: ReadonlyMap<string, string> = new Map(),
  /** Issue 26: with it, a DOCX/XLSX/PPTX/PDF change is shown as what changes inside the document. */
  documents?: DocumentsModule,
): Promise<{
  request: Omit<ApprovalRequest, 'status'>
  fingerprints: Map<string, Digest | null>
}> {
  const fingerprints = new Map<string, Digest | null>()
  const pieces: string[] = []
  const documentDiffs: Array<{ path: string; diff: DocumentDiff | null }> = []
  const deadline = Date.now() + APPROVAL_DOCUMENT_BUDGET_MS
  for (const change of changes) {
    const source = change.old_path ?? change.path
    fingerprints.set(source, change.before.kind === 'regular' ? change.before.digest : null)
    if (change.old_path) fingerprints.set(change.path, null)
    const before = change.before.kind === 'regular' ? change.before.bytes : undefined
    const after = change.after.kind === 'regular' ? change.after.bytes : undefined
    const [oldText, newText] = [textOf(before), textOf(after)]
    const oldName = change.before.kind === 'absent' ? '/dev/null' : `a/${source}`
    const newName = change.after.kind === 'absent' ? '/dev/null' : `b/${change.path}`
    const document = documents && (await documentDiff(documents, change, before, after, deadline))
    if (document !== undefined && document !== null) {
      documentDiffs.push({ path: change.path, diff: document.diff })
      const words = document.diff ? documentLine(document.diff) : `${before?.length ?? 0} → ${after?.length ?? 0} bytes`
      pieces.push(`--- ${oldName}\n+++ ${newName}\nDocument: ${words}\n`)
      continue
    }
    if (oldText === null || newText === null) {
      pieces.push(`--- ${oldName}\n+++ ${newName}\nBinary file: ${before?.length ?? 0} → ${after?.length ?? 0} bytes\n`)
      continue
    }
    // Bounded: a pathological pair shows its size instead of freezing the approval.
    const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
      context: 3,
      timeout: 1_000,
    })
    pieces.push(
      patch === undefined
        ? `--- ${oldName}\n+++ ${newName}\nToo different to show as a diff (${oldText.length} → ${newText.length} characters)\n`
        : patch.replace(/^=+\n/m, ''),
    )
  }
  let diff = pieces.join('')
  if (diff.length > MAX_DIFF_CHARS)
    diff = `${diff.slice(0, MAX_DIFF_CHARS)}\n… diff cut at ${MAX_DIFF_CHARS} characters\n`
  return {
    request: {
      kind: 'diff',
      diff,
      files: changes.map((change) => {
        const source = sources.get(change.path)
        return { path: change.path, operation: change.operation, ...(source !== undefined ? { source } : {}) }
      }),
      ...(documentDiffs.length > 0 ? { documents: documentDiffs } : {}),
    },
    fingerprints,
  }
}

/**
 * A changed document's diff within what is left of the card's budget: `null` when the file is not
 * a document; `{ diff: null }` when it is one but its diff could not be had in time (or at all).
 */
async function documentDiff(
  documents: DocumentsModule,
  change: PlannedChange,
  before: Buffer | undefined,
  after: Buffer | undefined,
  deadline: number,
): Promise<{ diff: DocumentDiff | null } | null> {
  const sides = [before, after].filter((side): side is Buffer => side !== undefined)
  const isDocument = sides.some((side) => sniffDocument(change.path, side).kind !== 'none')
  if (!isDocument && !(sides.length === 0 && mayBeDocument(change.path))) return null
  const left = deadline - Date.now()
  if (left <= 0) return { diff: null }
  const outcome = await documents.diff(change.path, before ?? null, after ?? null, left)
  return { diff: outcome.kind === 'diff' ? outcome.diff : null }
}
