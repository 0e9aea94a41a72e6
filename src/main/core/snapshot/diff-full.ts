import { fail, failureReason, ok, type Outcome } from '../../../shared/protocol'
import { shadowGit, splitNul, type Shadow } from './repo'
import type { SnapshotRuntime } from './runtime'
import { isSnapshotHash, snapshotGone, stateOf } from './tree'
import type { SnapshotChange, SnapshotState } from './types'

/** One record of `diff-tree --raw -z`: both modes and objects, and the path. */
export interface RawTreeChange {
  readonly path: string
  readonly before: { mode: string; oid: string } | null
  readonly after: { mode: string; oid: string } | null
}

const ZERO = /^0+$/

/** `diff-tree -r -z --raw --no-renames from to`: every path whose entry differs between two trees. */
export async function rawTreeChanges(shadow: Shadow, from: string, to: string): Promise<Outcome<RawTreeChange[]>> {
  const out = await shadowGit(shadow, ['diff-tree', '-r', '-z', '--raw', '--no-renames', from, to], 'diff-tree')
  if (out.kind === 'error') return failureReason(out.error) === 'missing-object' ? snapshotGone(from) : out
  const fields = splitNul(out.result.stdout)
  const changes: RawTreeChange[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] ?? ''
    if (!meta.startsWith(':')) break
    const [oldMode = '', newMode = '', oldOid = '', newOid = ''] = meta.slice(1).split(' ')
    changes.push({
      path: fields[i + 1] ?? '',
      before: ZERO.test(oldMode) ? null : { mode: oldMode, oid: oldOid },
      after: ZERO.test(newMode) ? null : { mode: newMode, oid: newOid },
    })
  }
  return ok(changes)
}

/** Sizes of objects by id (`cat-file --batch-check`). */
async function objectSizes(shadow: Shadow, oids: readonly string[]): Promise<Outcome<Map<string, number>>> {
  const unique = [...new Set(oids)]
  const sizes = new Map<string, number>()
  if (unique.length === 0) return ok(sizes)
  const out = await shadowGit(shadow, ['cat-file', '--batch-check'], 'cat-file', { stdin: `${unique.join('\n')}\n` })
  if (out.kind === 'error') return out
  for (const line of out.result.stdout.toString('utf8').split('\n')) {
    const [oid = '', type = '', size = ''] = line.split(' ')
    if (type === 'missing') return snapshotGone(oid)
    if (oid !== '') sizes.set(oid, Number(size))
  }
  return ok(sizes)
}

/**
 * Spec 06 `diffFull(from, to)`: per file, both sides (mode, object, size) and exact line counts
 * from git's numstat (null for binary files). Content is read separately and bounded (`readBlobs`).
 */
export async function diffFull(rt: SnapshotRuntime, from: string, to: string): Promise<Outcome<SnapshotChange[]>> {
  if (!isSnapshotHash(from) || !isSnapshotHash(to)) return fail('INVALID_REQUEST', 'Not a snapshot hash.')
  if (from === to) return ok([])
  const [raw, numstat] = await Promise.all([
    rawTreeChanges(rt.shadow, from, to),
    shadowGit(rt.shadow, ['diff-tree', '-r', '-z', '--numstat', '--no-renames', from, to], 'diff-tree'),
  ])
  if (raw.kind === 'error') return raw
  if (numstat.kind === 'error') return failureReason(numstat.error) === 'missing-object' ? snapshotGone(from) : numstat
  const counts = new Map<string, { added: number | null; removed: number | null }>()
  for (const record of splitNul(numstat.result.stdout)) {
    const [added = '-', removed = '-', ...path] = record.split('\t')
    counts.set(path.join('\t'), {
      added: added === '-' ? null : Number(added),
      removed: removed === '-' ? null : Number(removed),
    })
  }
  const sizes = await objectSizes(
    rt.shadow,
    raw.result
      .flatMap((c) => [c.before, c.after])
      .flatMap((side) => (side !== null && side.mode !== '160000' ? [side.oid] : [])),
  )
  if (sizes.kind === 'error') return sizes
  const state = (side: { mode: string; oid: string } | null): SnapshotState =>
    side === null ? { kind: 'absent' } : stateOf(side.mode, side.oid, sizes.result.get(side.oid) ?? 0)
  return ok(
    raw.result.map((change) => {
      const count = counts.get(change.path) ?? { added: null, removed: null }
      return {
        path: change.path,
        operation: change.before === null ? 'create' : change.after === null ? 'delete' : 'modify',
        before: state(change.before),
        after: state(change.after),
        added: count.added,
        removed: count.removed,
        binary: count.added === null,
      }
    }),
  )
}
