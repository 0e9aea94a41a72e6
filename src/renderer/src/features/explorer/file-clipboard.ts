import { baseName, copyName, parentPath } from '../../../../shared/paths'
import type { ResultOf } from '../../../../shared/protocol'
import type { RequestClient, RequestOutcome } from '../../transport'
import type { ScopeSlot } from '../../ui/project-scope'
import { createStore, type Store } from '../../ui/store'

/**
 * The file Ctrl+C copied in this project's explorer. Kept in the project's scope, not the system
 * clipboard: `files.copy` copies within one project, and a path written to the system clipboard
 * would be pasted as text into the editor, which is not what the person copied a file for.
 */
export const fileClipboardSlot: ScopeSlot<Store<string | null>> = {
  name: 'explorer.clipboard',
  create: () => createStore<string | null>(null),
}

/** How many names ("a (copy).ts", "a (copy 2).ts"…) a paste tries before it gives up. */
export const MAX_COPY_NAMES = 20

/**
 * The name a pasted copy takes in `folder`: the file's own name first (a paste into another
 * folder keeps it), then the editor's "save mine as a copy" rule — `notes (copy).md`,
 * `notes (copy 2).md` — so both ways of copying a file name it alike.
 */
export function pastedCopyPath(source: string, folder: string, attempt: number): string {
  const name = baseName(source)
  const candidate = attempt === 0 ? name : copyName(name, attempt)
  return folder === '' ? candidate : `${folder}/${candidate}`
}

/**
 * Copies `source` into `folder` through `files.copy` (journaled, undoable), trying the next copy
 * name while the journal answers CONFLICT (the name is taken). A paste into the file's own folder
 * starts at "(copy)": the journal would refuse the file's own name anyway.
 */
export async function pasteFile(
  client: RequestClient,
  projectId: string,
  source: string,
  folder: string,
  signal: AbortSignal,
): Promise<RequestOutcome<ResultOf<'files.copy'> & { readonly path: string }>> {
  let last: RequestOutcome<ResultOf<'files.copy'>> = { kind: 'cancelled' }
  for (let attempt = parentPath(source) === folder ? 1 : 0; attempt <= MAX_COPY_NAMES; attempt++) {
    const to = pastedCopyPath(source, folder, attempt)
    last = await client.request(
      'files.copy',
      { from: source, to },
      { owner: { project_id: projectId }, idempotencyKey: crypto.randomUUID(), signal },
    )
    if (last.kind === 'ok') return { kind: 'ok', result: { ...last.result, path: to } }
    if (!(last.kind === 'error' && last.error.code === 'CONFLICT')) return last
  }
  return last
}
