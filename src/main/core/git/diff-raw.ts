import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/** One path of `git diff --raw`: both blob ids (null for absent or the worktree side) and the status letter. */
export interface RawChange {
  readonly path: string
  readonly status: string
  readonly old_oid: string | null
  readonly new_oid: string | null
}

const ZERO = /^0+$/

/**
 * `git diff --raw -z --no-renames <from> [<to>]`: without `to` it compares against the worktree
 * (new ids are zeros there and the content is read from disk). Submodules by their commit only,
 * as `status` sees them.
 */
export async function diffRaw(root: string, from: string, to?: string): Promise<Outcome<RawChange[]>> {
  const out = await git(
    root,
    [
      'diff',
      '--raw',
      '-z',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--ignore-submodules=dirty',
      from,
      ...(to ? [to] : []),
      '--',
    ],
    'diff',
  )
  if (out.kind === 'error') return out
  const fields = out.result.toString('utf8').split('\0')
  const changes: RawChange[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] ?? '').split(' ')
    const path = fields[i + 1] ?? ''
    if (!meta[0]?.startsWith(':')) break
    const oldOid = meta[2] ?? ''
    const newOid = meta[3] ?? ''
    changes.push({
      path,
      status: meta[4] ?? 'M',
      old_oid: ZERO.test(oldOid) ? null : oldOid,
      new_oid: ZERO.test(newOid) ? null : newOid,
    })
  }
  return { kind: 'ok', result: changes }
}
