import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { HeldReason } from '../../../shared/protocol'
import { dependencyFolderOf } from '../../../shared/paths'
import { queryAllReceipts } from '../journal'
import type { Database } from '../store'
import { overlappingWindows, type CommandWindow } from './windows'

/**
 * Folders of installed dependencies and tool environments: what a command puts there is
 * regenerated, not authored, and can be tens of thousands of files. Their changes are shown with
 * the reason and restored only when the person asks — whether or not the project's ignore rules
 * name them (a fresh project often has no .gitignore yet when the agent runs `npm install`).
 * The path lies inside such a folder (at any depth); the list is `dependencyFolderOf`'s.
 */
export function inDependencyFolder(path: string): boolean {
  return dependencyFolderOf(path) !== null
}

export interface StepAttribution {
  /** Changed files not credited to the step's commands, with the reason (ignored folders are implied). */
  readonly held: Array<{ path: string; reason: HeldReason }>
  /** Folders inside the project that are git repositories of their own: nothing under them is credited. */
  readonly nestedRepositories: string[]
}

/**
 * Issue 23: which of a step's changed files its own commands made. A file is not credited to them
 * (it is held, shown with the reason, restored only on request) when:
 * - it changed before the commands were let run (while the model streamed or an approval waited):
 *   the person or another program wrote it — `person`;
 * - a journaled write of someone else landed on it during the window: the person's (files.write,
 *   a restore) — `person` — or another session's agent — `other-session`;
 * - another session's command window overlapped this one and the file changed while both ran: who
 *   wrote it cannot be known from the trees — `ambiguous` (a file changed only while this
 *   session's commands ran alone stays credited);
 * - it lies inside a nested repository — `nested-repository`.
 * The step's own receipts are not held: the journal's exact row already covers those files.
 */
export async function attributeStep(input: {
  readonly db: Database
  readonly root: string
  readonly workspaceId: string
  readonly turnId: string
  readonly stepStart: string
  readonly window: CommandWindow
  readonly after: string
  readonly endedAtMs: number
  readonly files: readonly string[]
  readonly changedPaths: (from: string, to: string) => Promise<readonly string[] | null>
}): Promise<StepAttribution> {
  const { window } = input
  const reasons = new Map<string, HeldReason>()
  const hold = (paths: Iterable<string>, reason: HeldReason) => {
    for (const path of paths) if (!reasons.has(path)) reasons.set(path, reason)
  }
  const files = new Set(input.files)
  const within = (paths: Iterable<string>) => [...paths].filter((path) => files.has(path))

  if (window.fromHash === null) {
    // The capture before the commands failed: when they started is unknown, so nothing is credited.
    hold(files, 'person')
  } else if (window.fromHash !== input.stepStart) {
    const before = await input.changedPaths(input.stepStart, window.fromHash)
    hold(before === null ? files : within(before), 'person')
  }

  for (const receipt of queryAllReceipts(input.db, {
    workspace_id: input.workspaceId,
    since_sequence: window.fromSequence,
  })) {
    if (receipt.status !== 'committed' || receipt.origin_turn_id === input.turnId) continue
    const otherAgent = receipt.kind === 'edit' && receipt.session_id !== null && receipt.session_id !== window.sessionId
    const paths = receipt.files.flatMap((file) => (file.old_path ? [file.old_path, file.path] : [file.path]))
    hold(within(paths), otherAgent ? 'other-session' : 'person')
  }

  for (const other of overlappingWindows(input.db, window, input.endedAtMs)) {
    // The span both ran: from the later start to the earlier end.
    const start = other.startedAtMs > window.startedAtMs ? other.fromHash : window.fromHash
    const end = other.endedAtMs !== null && other.endedAtMs < input.endedAtMs ? other.toHash : input.after
    const both = start === null || end === null ? null : await input.changedPaths(start, end)
    hold(both === null ? files : within(both), 'ambiguous')
  }

  const nestedRepositories = nestedRepositoriesOf(input.root, files)
  hold(
    [...files].filter((path) => nestedRepositories.some((folder) => path.startsWith(`${folder}/`))),
    'nested-repository',
  )
  return {
    held: [...reasons].map(([path, reason]) => ({ path, reason })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    nestedRepositories,
  }
}

/** Folders (below the root) holding a `.git` of their own, among the ancestors of these files. */
function nestedRepositoriesOf(root: string, files: Iterable<string>): string[] {
  const checked = new Map<string, boolean>()
  const found = new Set<string>()
  for (const path of files) {
    if (inDependencyFolder(path)) continue
    const segments = path.split('/')
    for (let depth = 1; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth).join('/')
      let nested = checked.get(folder)
      if (nested === undefined) {
        nested = existsSync(join(root, folder, '.git'))
        checked.set(folder, nested)
      }
      if (nested) {
        found.add(folder)
        break
      }
    }
  }
  return [...found].sort()
}
