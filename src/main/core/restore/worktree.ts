import { closeSync, existsSync, readlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fail, ok, type Outcome, type ProjectSummary } from '../../../shared/protocol'
import { filesNodeOf, leftSequenceAt, type SessionRecord } from '../conversation'
import { addWorktree, status } from '../git'
import { copyIntoTree, linkIntoTree, removeFromTree, writeIntoTree } from '../platform'
import { openFileForRead, withParent } from '../project-fs'
import type { BlobStore, Database } from '../store'
import { planTransition } from './transition'

/** `<parent folder>/<name>-fork-<n>`, the first that does not exist. */
function worktreeDir(root: string): string {
  for (let n = 1; ; n++) {
    const dir = join(dirname(root), `${basename(root)}-fork-${n}`)
    if (!existsSync(dir)) return dir
  }
}

/**
 * "Fork to new task" with files: a git worktree of the project holding `nodeId`'s code — the
 * repository's HEAD, then the parent's uncommitted files as they are now, then the journal's
 * transition from the files' node to `nodeId`. The parent's files are only read.
 */
export async function materializeWorktree(
  deps: { db: Database; blobs: BlobStore; workspaceIdOf: (project: ProjectSummary) => string },
  session: SessionRecord,
  project: ProjectSummary,
  nodeId: string,
): Promise<Outcome<string>> {
  const { db } = deps
  const transition = planTransition(db, {
    workspaceId: deps.workspaceIdOf(project),
    from: filesNodeOf(db, session),
    to: nodeId,
    redoSequence: leftSequenceAt(db, session.session_id, nodeId),
  })
  if (transition.unavailable.length > 0) {
    return fail('UNAVAILABLE', 'Some files cannot be put back exactly at that checkpoint.', {
      reason: 'not-exact',
      unavailable: transition.unavailable,
    })
  }
  const targets = new Map<string, { bytes: Buffer; mode: number } | null>()
  for (const action of transition.actions) {
    if (action.target.kind === 'absent') {
      targets.set(action.path, null)
      continue
    }
    const bytes = await deps.blobs.read(action.target.blob_ref ?? action.target.digest)
    if (bytes.kind === 'error') {
      return fail('UNAVAILABLE', `The version of "${action.path}" at that checkpoint is no longer kept.`, {
        reason: 'expired',
        path: action.path,
      })
    }
    targets.set(action.path, { bytes: bytes.result, mode: Number.parseInt(action.target.mode, 8) })
  }
  const changed = await status(project.root)
  if (changed.kind === 'error') return changed
  const dir = worktreeDir(project.root)
  const added = await addWorktree(project.root, dir)
  if (added.kind === 'error') return added
  try {
    // The parent's uncommitted files as they are now (git's own view: ignored files stay out).
    // HEAD may hold a link where the parent holds a real folder (issue 23 review: a hostile
    // repository commits `docs -> ~/.ssh` and ships a real `docs/` folder): the copy never
    // follows a link on either side (platform/own-tree.ts, project-fs).
    for (const entry of changed.result.entries) {
      if (entry.old_path !== null) removeFromTree(dir, entry.old_path)
      await copyParentEntry(project.root, entry.path, dir)
    }
    for (const [path, target] of targets) {
      if (target === null) removeFromTree(dir, path)
      else await writeIntoTree(dir, path, target.bytes, target.mode)
    }
  } catch (error) {
    return fail('INTERNAL', `Preparing the worktree failed: ${(error as Error).message}`, { path: dir })
  }
  return ok(dir)
}

/**
 * One changed path of the parent, as it is now, into the new worktree: a file's bytes and mode, a
 * link as a link, an absent path removed. Reached without following links: a path below a link of
 * the parent is not the parent's file, and a FIFO or device is never opened for a read that waits.
 */
async function copyParentEntry(root: string, path: string, dir: string): Promise<void> {
  const done = await withParent(root, path, async (folder, name) => {
    const opened = openFileForRead(folder, name)
    if (opened.kind === 'regular') {
      try {
        await copyIntoTree(dir, path, opened.fd, opened.mode & 0o777)
      } finally {
        closeSync(opened.fd)
      }
    } else if (opened.kind === 'symlink') {
      linkIntoTree(dir, path, readlinkSync(folder.at(name)))
    } else if (opened.kind === 'absent') {
      removeFromTree(dir, path)
    }
    return { kind: 'done' as const }
  })
  if (done.kind === 'unreachable' && done.reason === 'absent') removeFromTree(dir, path)
}
