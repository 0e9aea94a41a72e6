import { ok, fail, type Outcome } from '../../../shared/protocol'
import { git } from './runner'

async function revParse(root: string, rev: string): Promise<string | null> {
  const out = await git(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], 'rev-parse')
  return out.kind === 'ok' ? out.result.toString('utf8').trim() || null : null
}

/** HEAD's commit id, or null in a repository without commits. */
export function headCommit(root: string): Promise<string | null> {
  return revParse(root, 'HEAD')
}

/**
 * Where the current branch left its base (spec 07 "Branch (vs merge-base)"): the merge-base with
 * the remote's default branch, else a local main/master, else the upstream — the first that differs
 * from HEAD.
 */
export async function branchBase(root: string): Promise<Outcome<{ base: string; against: string }>> {
  const candidates = ['origin/HEAD', 'main', 'master', '@{upstream}']
  const head = await headCommit(root)
  if (head === null) return fail('UNAVAILABLE', 'This repository has no commits yet.', { reason: 'no-commits' })
  for (const candidate of candidates) {
    const commit = await revParse(root, candidate)
    if (commit === null) continue
    const base = await git(root, ['merge-base', 'HEAD', commit], 'merge-base')
    if (base.kind === 'error') continue
    const id = base.result.toString('utf8').trim()
    // Comparing a branch with itself says nothing: look for a different base.
    if (id === head) continue
    return ok({ base: id, against: candidate })
  }
  return fail('UNAVAILABLE', 'No upstream or default branch to compare this branch with.', { reason: 'no-base' })
}

/** The parent of HEAD, or null for a root commit. */
export function headParent(root: string): Promise<string | null> {
  return revParse(root, 'HEAD~1')
}
