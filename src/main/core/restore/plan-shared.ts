import { createHash } from 'node:crypto'
import type { Workspace } from '../journal'
import { canonicalJson, type Database } from '../store'
import { NO_FOLDERS, planFolderCreations, planFolderRemovals, type FolderPlan } from './plan-folders'
import type { Conflict, RestoreAction } from './preflight'

/**
 * The stages every restore plan shares, single-turn and multi-turn (issue 24: one planner, where
 * the two differ the difference is named at the call).
 */

/**
 * Which folders a restore touches besides its files: the empty ones the undone turns created go
 * (Undo, Revert, Rewind), the ones the inverted restore removed come back (Redo), or none
 * (Reapply brings a turn's folders back with its files and never makes an empty one again).
 */
export type FolderIntent =
  | { readonly kind: 'remove'; readonly transactionIds: readonly string[] }
  | { readonly kind: 'recreate'; readonly folders: readonly string[] }
  | { readonly kind: 'none' }

export async function planFolders(
  deps: { readonly db: Database; readonly workspace: Workspace; readonly maxFileBytes: number },
  actions: readonly RestoreAction[],
  intent: FolderIntent,
): Promise<FolderPlan> {
  switch (intent.kind) {
    case 'remove':
      return planFolderRemovals({ ...deps, transactionIds: intent.transactionIds, actions })
    case 'recreate':
      return planFolderCreations({ ...deps, folders: intent.folders })
    case 'none':
      return { folders: NO_FOLDERS, disks: new Map(), conflicts: [] }
  }
}

/** Any path that cannot be restored exactly makes the plan unavailable; any conflict blocks it. */
export function planStatus(
  unavailable: readonly unknown[],
  conflicts: readonly Conflict[],
): 'ready' | 'blocked' | 'unavailable' {
  return unavailable.length > 0 ? 'unavailable' : conflicts.length > 0 ? 'blocked' : 'ready'
}

/** The hash a confirmed apply must reproduce: every input and every action the preview showed. */
export function planHash(inputs: unknown): string {
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex')
}
