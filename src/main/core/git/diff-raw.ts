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
 *
 * Against the worktree, git's own check of files whose stat data changed but not their bytes would
 * rewrite the person's index (`diff.autoRefreshIndex`, which ignores `--no-optional-locks`): it is
 * off, and those files are told apart here by hashing them as git would (`hash-object`, which
 * writes nothing).
 */
export async function diffRaw(root: string, from: string, to?: string): Promise<Outcome<RawChange[]>> {
  const changes = await listRaw(root, from, to)
  if (changes.kind === 'error' || to !== undefined) return changes
  const suspects = changes.result.filter((c) => c.status === 'M' && c.new_oid === null && c.old_oid !== null)
  if (suspects.length === 0) return changes
  const hashed = await git(root, ['hash-object', '--stdin-paths'], 'hash-object', {
    stdin: `${suspects.map((c) => c.path).join('\n')}\n`,
  })
  // Paths with a line break cannot go through --stdin-paths: such a change is kept, as listed.
  if (hashed.kind === 'error' || suspects.some((c) => c.path.includes('\n'))) return changes
  const hashes = hashed.result.toString('utf8').split('\n')
  const unchanged = new Set(suspects.filter((c, i) => hashes[i] === c.old_oid).map((c) => c.path))
  return { kind: 'ok', result: changes.result.filter((c) => !unchanged.has(c.path)) }
}

async function listRaw(root: string, from: string, to?: string): Promise<Outcome<RawChange[]>> {
  const out = await git(
    root,
    [
      'diff',
      '--raw',
      // Whole ids: an abbreviated one can be ambiguous in a large repository.
      '--no-abbrev',
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
    { config: { 'diff.autoRefreshIndex': 'false' } },
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
