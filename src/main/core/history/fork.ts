import { randomUUID } from 'node:crypto'
import { closeSync, existsSync, readlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fail, ok, type Outcome, type ProjectSummary } from '../../../shared/protocol'
import { addWorktree, status } from '../git'
import { copyIntoTree, linkIntoTree, removeFromTree, writeIntoTree } from '../platform'
import { openFileForRead, withParent } from '../project-fs'
import { inImmediateTransaction, statement, type BlobStore, type Database } from '../store'
import { chainOf, getNode } from './dag'
import { filesNodeOf } from './plan-rewind'
import { createSession } from './sessions'
import { planTransition } from './transition'
import type { Part, SessionRecord } from './types'

export interface ForkDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  /** Opens a folder as a project (the worktree of a fork with files). */
  readonly openProject: (path: string) => Promise<Outcome<ProjectSummary>>
  readonly workspaceIdOf: (project: ProjectSummary) => string
}

/** Bookkeeping of a turn that belongs to its own receipts; a copied conversation has none. */
const RECEIPT_PARTS = new Set(['file-summary', 'patch'])

/**
 * Spec 04 "Fork to new task": a new session whose conversation is a copy of ROOT → `nodeId`, the
 * source session untouched. Without files the new session works on the same folder as it is.
 * With files (git projects only) the checkpoint becomes a git worktree of its own — the
 * repository's HEAD, then the parent's uncommitted files as they are now, then the journal's
 * transition from the files' node to `nodeId` — opened as a project; the new session belongs to
 * it. The parent's files are only read.
 */
export async function forkSession(
  deps: ForkDependencies,
  session: SessionRecord,
  project: ProjectSummary,
  request: { node_id: string; with_files: boolean },
): Promise<Outcome<{ session: SessionRecord; worktree: { path: string; project_id: string } | null }>> {
  const { db } = deps
  const node = getNode(db, request.node_id)
  if (!node || node.session_id !== session.session_id || node.kind === 'user') {
    return fail('NOT_FOUND', 'Fork from an assistant turn (or the start) of this session.', {
      node_id: request.node_id,
    })
  }
  if (node.status === 'running') return fail('BUSY', 'Wait for this turn to finish before forking from it.')
  let target = project
  let worktree: { path: string; project_id: string } | null = null
  if (request.with_files) {
    if (!project.is_git) {
      return fail(
        'UNAVAILABLE',
        'Forking with files needs a git project; restore code and conversation in this session instead.',
        { reason: 'not-git' },
      )
    }
    const made = await materializeWorktree(deps, session, project, request.node_id)
    if (made.kind === 'error') return made
    const opened = await deps.openProject(made.result)
    if (opened.kind === 'error') return opened
    target = opened.result
    worktree = { path: opened.result.root, project_id: opened.result.project_id }
  }
  const created = createSession(db, {
    project_id: target.project_id,
    workspace_id: deps.workspaceIdOf(target),
    title: `${session.title} (fork)`,
    permission_mode: session.permission_mode,
  })
  const forked = inImmediateTransaction(db, () => {
    const ids = new Map<string, string>([[session.root_node_id, created.root_node_id]])
    const insert = statement(db, 'INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?)')
    const partsOf = statement(db, 'SELECT parts, created_at_ms FROM nodes WHERE node_id = ?')
    for (const link of chainOf(db, request.node_id)) {
      if (link.kind === 'root') continue
      const row = partsOf.get(link.node_id) as { parts: string; created_at_ms: number }
      const parts = (JSON.parse(row.parts) as Part[]).filter((part) => !RECEIPT_PARTS.has(part.type))
      const id = link.kind === 'user' ? `node_${randomUUID()}` : `turn_${randomUUID()}`
      ids.set(link.node_id, id)
      insert.run(
        id,
        created.session_id,
        ids.get(link.parent_node_id ?? '') ?? created.root_node_id,
        link.kind,
        JSON.stringify(parts),
        'complete',
        // The copy is made now (the transcript orders by creation); the parts keep their own times.
        Math.max(row.created_at_ms, Date.now()),
      )
    }
    statement(db, 'UPDATE branches SET head_node_id = ?, head_version = head_version + 1 WHERE branch_id = ?').run(
      ids.get(request.node_id) ?? created.root_node_id,
      created.active_branch_id,
    )
    return statement(db, 'SELECT * FROM sessions WHERE session_id = ?').get(
      created.session_id,
    ) as unknown as SessionRecord
  })
  return ok({ session: forked, worktree })
}

/** `<parent folder>/<name>-fork-<n>`, the first that does not exist. */
function worktreeDir(root: string): string {
  for (let n = 1; ; n++) {
    const dir = join(dirname(root), `${basename(root)}-fork-${n}`)
    if (!existsSync(dir)) return dir
  }
}

async function materializeWorktree(
  deps: ForkDependencies,
  session: SessionRecord,
  project: ProjectSummary,
  nodeId: string,
): Promise<Outcome<string>> {
  const { db } = deps
  const left = statement(
    db,
    'SELECT left_sequence FROM branches WHERE session_id = ? AND head_node_id = ? AND left_sequence IS NOT NULL LIMIT 1',
  ).get(session.session_id, nodeId) as { left_sequence: number } | undefined
  const transition = planTransition(db, {
    workspaceId: deps.workspaceIdOf(project),
    from: filesNodeOf(db, session),
    to: nodeId,
    redoSequence: left?.left_sequence ?? null,
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
