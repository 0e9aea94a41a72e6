import { fail, ok, type Outcome } from '../../../shared/protocol'
import { applyChunks, parsePatch } from './apply-patch-parse'
import type { MutatorContext } from './mutators'
import { readWriteTarget, tooLarge } from './target'
import type { PlannedChange } from './transaction'

const utf8 = new TextDecoder('utf-8', { fatal: true })

// The parser's sentence can quote a path from the patch: the details carry a bounded copy.
const DETAIL_CHARS = 500

/**
 * `apply_patch`: every file of the patch in one transaction. Any grammar error, missing file,
 * existing target or chunk that does not match fails the whole patch before anything is written.
 */
export async function planApplyPatch(context: MutatorContext, patchText: string): Promise<Outcome<PlannedChange[]>> {
  const parsed = parsePatch(patchText)
  if (parsed.kind === 'error') {
    return fail('INVALID_REQUEST', `The patch is malformed at line ${parsed.line}: ${parsed.message}`, {
      line: parsed.line,
      detail: parsed.message.slice(0, DETAIL_CHARS),
      reason: 'patch-syntax',
    })
  }
  const target = (path: string) =>
    readWriteTarget(
      { root: context.workspace.root, dataDir: context.workspace.dataDir },
      path,
      context.limits.maxFileBytes,
    )
  const changes: PlannedChange[] = []
  for (const operation of parsed.operations) {
    const state = await target(operation.path)
    if (state.kind === 'error') return state
    const before = state.result
    if (operation.kind === 'add') {
      if (before.kind !== 'absent')
        return fail('CONFLICT', `"${operation.path}" already exists; the patch adds it.`, { path: operation.path })
      const bytes = Buffer.from(operation.lines.length === 0 ? '' : `${operation.lines.join('\n')}\n`, 'utf8')
      if (bytes.length > context.limits.maxFileBytes)
        return tooLarge(operation.path, bytes.length, context.limits.maxFileBytes)
      changes.push({
        operation: 'create',
        path: operation.path,
        old_path: null,
        before,
        after: { kind: 'regular', bytes, mode: 0o644 },
      })
      continue
    }
    if (before.kind !== 'regular') {
      return before.kind === 'absent'
        ? fail('NOT_FOUND', `"${operation.path}" does not exist.`, { path: operation.path, reason: 'no-file' })
        : fail('INVALID_REQUEST', `"${operation.path}" is a folder, not a file.`, {
            path: operation.path,
            reason: 'is-directory',
          })
    }
    if (operation.kind === 'delete') {
      changes.push({ operation: 'delete', path: operation.path, old_path: null, before, after: { kind: 'absent' } })
      continue
    }
    let text: string
    try {
      text = utf8.decode(before.bytes)
    } catch {
      return fail('UNSUPPORTED', `"${operation.path}" is not UTF-8 text; a patch changes text only.`, {
        path: operation.path,
        reason: 'binary',
      })
    }
    // Keep the file's own line endings and final newline.
    const eol = text.includes('\r\n') ? '\r\n' : '\n'
    const finalNewline = text.endsWith('\n')
    const lines = text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n')
    const applied = applyChunks(lines, operation.chunks)
    if (applied.kind === 'error') {
      return fail(
        'CONFLICT',
        `Chunk ${applied.chunk + 1} of the patch for "${operation.path}" does not match the file; nothing was written.`,
        {
          path: operation.path,
          chunk: applied.chunk + 1,
          reason: 'hunk-mismatch',
        },
      )
    }
    const next = applied.lines.join(eol) + (finalNewline && applied.lines.length > 0 ? eol : '')
    const bytes = Buffer.from(next, 'utf8')
    if (bytes.length > context.limits.maxFileBytes)
      return tooLarge(operation.path, bytes.length, context.limits.maxFileBytes)
    if (operation.moveTo === null) {
      changes.push({
        operation: 'modify',
        path: operation.path,
        old_path: null,
        before,
        after: { kind: 'regular', bytes, mode: before.mode },
      })
      continue
    }
    const destination = await target(operation.moveTo)
    if (destination.kind === 'error') return destination
    if (destination.result.kind !== 'absent') {
      return fail('CONFLICT', `"${operation.moveTo}" already exists; the patch moves a file there.`, {
        path: operation.moveTo,
      })
    }
    changes.push({
      operation: 'rename',
      path: operation.moveTo,
      old_path: operation.path,
      before,
      destination: destination.result,
      after: { kind: 'regular', bytes, mode: before.mode },
    })
  }
  return ok(changes)
}
