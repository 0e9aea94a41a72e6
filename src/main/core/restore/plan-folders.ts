import {
  createdFoldersOf,
  deepestFirst,
  folderContents,
  outermostFirst,
  parentWritable,
  readWriteTarget,
  type DiskState,
  type Workspace,
} from '../journal'
import type { Database } from '../store'
import type { Conflict, RestoreAction } from './preflight'

/**
 * Issue 23 item 14: the folders a restore removes or makes, besides its files. Part of the plan
 * (its hash and its preview) like every path a restore writes.
 */
export interface FolderActions {
  /** Folders the undone turns created that are empty once the restore's files are gone, deepest first. */
  readonly removed: string[]
  /** Folders a Redo makes again because the restore it inverts removed them, outermost first. */
  readonly created: string[]
}

export const NO_FOLDERS: FolderActions = { removed: [], created: [] }

export interface FolderPlan {
  readonly folders: FolderActions
  /** Each folder's state as read now (the journal's planned change starts from it). */
  readonly disks: ReadonlyMap<string, DiskState>
  readonly conflicts: Conflict[]
}

const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')))

/**
 * Which of the folders the undone transactions created go with them. A folder goes only when the
 * journal recorded that one of those transactions created it (never one that existed before the
 * turn, however empty) and, read on disk now without following links, it holds nothing but files
 * this restore removes and folders that go too — a file the person put there, an ignored build
 * output or a link keeps it (and everything above it). A folder a file of the restore goes into
 * stays. Runs again under the workspace lock at apply, so what is removed is what was just read.
 */
export async function planFolderRemovals(input: {
  readonly db: Database
  readonly workspace: Workspace
  readonly maxFileBytes: number
  readonly transactionIds: readonly string[]
  readonly actions: readonly RestoreAction[]
}): Promise<FolderPlan> {
  const { workspace } = input
  const candidates = createdFoldersOf(input.db, input.transactionIds)
  const disks = new Map<string, DiskState>()
  if (candidates.length === 0) return { folders: NO_FOLDERS, disks, conflicts: [] }
  const leaving = new Set(input.actions.filter((a) => a.target.kind === 'absent').map((a) => a.path))
  const needed = new Set<string>()
  for (const action of input.actions) {
    if (action.target.kind === 'absent') continue
    for (let folder = parentOf(action.path); folder !== ''; folder = parentOf(folder)) needed.add(folder)
  }
  const removed: string[] = []
  const goes = new Set<string>()
  for (const folder of deepestFirst(candidates)) {
    if (needed.has(folder)) continue
    const contents = folderContents(workspace.root, folder, (name) => {
      const path = `${folder}/${name}`
      return leaving.has(path) || goes.has(path)
    })
    if (contents !== 'only-leaving') continue
    const disk = await readWriteTarget(workspace, folder, input.maxFileBytes)
    if (disk.kind !== 'ok' || disk.result.kind !== 'directory') continue
    // A folder Retrace may not remove stays, as an empty folder costs nothing; the files still go.
    if (!parentWritable(workspace.root, disk.result.place)) continue
    goes.add(folder)
    removed.push(folder)
    disks.set(folder, disk.result)
  }
  return { folders: { removed, created: [] }, disks, conflicts: [] }
}

/**
 * Redo's side (the exact inverse of a restore that removed folders): each folder is made again,
 * outermost first and before the files that go into it, unless it exists already (then there is
 * nothing to do). A file or a link where the folder goes is a conflict, like any path that holds
 * something the restore did not leave.
 */
export async function planFolderCreations(input: {
  readonly workspace: Workspace
  readonly maxFileBytes: number
  readonly folders: readonly string[]
}): Promise<FolderPlan> {
  const created: string[] = []
  const disks = new Map<string, DiskState>()
  const conflicts: Conflict[] = []
  for (const folder of outermostFirst(input.folders)) {
    const disk = await readWriteTarget(input.workspace, folder, input.maxFileBytes)
    if (disk.kind === 'error') {
      conflicts.push({ path: folder, reason: 'unsafe-path', message: disk.error.message })
      continue
    }
    if (disk.result.kind === 'directory') continue
    if (disk.result.kind !== 'absent') {
      conflicts.push({
        path: folder,
        reason: 'changed-since',
        message: `"${folder}" is a file now; the folder Redo brings back cannot go there.`,
        expected: 'absent',
        actual: disk.result.digest,
      })
      continue
    }
    created.push(folder)
    disks.set(folder, disk.result)
  }
  return { folders: { removed: [], created }, disks, conflicts }
}
