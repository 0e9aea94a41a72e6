import { createTwoFilesPatch } from 'diff'
import type { ApprovalRequest } from '../../../shared/protocol'
import type { PlannedChange } from '../journal'
import type { Digest } from '../store'

const utf8 = new TextDecoder('utf-8', { fatal: true })
const MAX_DIFF_CHARS = 200_000

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
export function describeChanges(
  changes: readonly PlannedChange[],
  /** Target path → the project file its bytes come from (write's source_path), named on the card. */
  sources: ReadonlyMap<string, string> = new Map(),
): {
  request: Omit<ApprovalRequest, 'status'>
  fingerprints: Map<string, Digest | null>
} {
  const fingerprints = new Map<string, Digest | null>()
  const pieces: string[] = []
  for (const change of changes) {
    const source = change.old_path ?? change.path
    fingerprints.set(source, change.before.kind === 'regular' ? change.before.digest : null)
    if (change.old_path) fingerprints.set(change.path, null)
    const before = change.before.kind === 'regular' ? change.before.bytes : undefined
    const after = change.after.kind === 'regular' ? change.after.bytes : undefined
    const [oldText, newText] = [textOf(before), textOf(after)]
    const oldName = change.before.kind === 'absent' ? '/dev/null' : `a/${source}`
    const newName = change.after.kind === 'absent' ? '/dev/null' : `b/${change.path}`
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
    },
    fingerprints,
  }
}
