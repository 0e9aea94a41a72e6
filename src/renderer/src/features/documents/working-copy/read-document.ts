import type { FileRead } from '../../../../../shared/protocol'
import type { RequestOutcome } from '../../../transport'
import { readCache } from '../../drafts'
import { resolveAdapter } from '../adapters/registry'
import type { DocumentContent, SniffedType } from '../adapters/types'
import { loadBytes } from '../load-bytes'
import { BytesWorkingCopy } from './bytes-working-copy'
import type { ByteDraft, DocumentView } from './document-view'
import type { WorkingCopyService } from './service'

/** What one read of the file means for the view it updates. */
export type ReadResult =
  /** The view keeps what it shows (its own publish came back, or it holds unpublished changes). */
  | { readonly kind: 'keep' }
  /** Show this, unless the view already shows the same document (no redraw for a touch). */
  | { readonly kind: 'show'; readonly view: DocumentView; readonly unlessShowing: 'editable' | 'same' | null }

/**
 * Reads `path` for its tab and reconciles it with the path's working copy: the first read, or a
 * re-read after the watcher (or the journal) said the file changed (`changed`). A complete earlier
 * read of an unchanged file comes from the read cache. Null when `signal` aborted it.
 */
export async function readDocument(
  service: WorkingCopyService,
  path: string,
  changed: boolean,
  signal: AbortSignal,
): Promise<ReadResult | null> {
  const { client, projectId } = service
  const before = service.get(path)
  // A byte editor's publish in flight first: its answer names the revision that is ours.
  if (before instanceof BytesWorkingCopy) await before.settled()
  if (signal.aborted) return null
  const cached = changed ? undefined : readCache.get(projectId, path)
  const outcome: RequestOutcome<FileRead> =
    cached?.kind === 'text'
      ? { kind: 'ok', result: { kind: 'text', path, text: cached.text, revision: cached.revision, size: cached.size } }
      : await client.request('files.read', { path }, { owner: { project_id: projectId }, signal })
  if (signal.aborted || outcome.kind === 'cancelled') return null
  // A re-read under a byte editor this view shows. (A new view of a kept editor shows what it reads;
  // the editor ignores its own published bytes coming back.)
  if (
    changed &&
    before instanceof BytesWorkingCopy &&
    outcome.kind === 'ok' &&
    before.reconcile(outcome.result.revision) === 'mine'
  )
    return { kind: 'keep' }
  const show = (view: DocumentView, unlessShowing: 'editable' | 'same' | null = null): ReadResult => ({
    kind: 'show',
    view,
    unlessShowing,
  })
  if (outcome.kind !== 'ok') {
    const gone = outcome.kind === 'error' && outcome.error.code === 'NOT_FOUND'
    return show(gone && changed ? { kind: 'gone' } : { kind: 'failed', outcome })
  }
  const file = outcome.result
  if (file.kind === 'text')
    readCache.set(projectId, path, { kind: 'text', text: file.text, revision: file.revision, size: file.size })
  const type: SniffedType = {
    kind: file.kind,
    mime: file.kind === 'binary' ? file.mime : 'text/plain',
    path: file.path,
    size: file.size,
  }
  const entry = resolveAdapter(type)
  if (!entry) return show({ kind: 'unsupported', file, bytes: null })

  if (entry.needs === 'text' || file.kind === 'text') {
    const content: DocumentContent =
      file.kind === 'text'
        ? entry.needs === 'text'
          ? { kind: 'text', text: file.text }
          : { kind: 'bytes', bytes: new TextEncoder().encode(file.text), mime: type.mime }
        : { kind: 'text', text: '' }
    const editable = file.kind === 'text' && entry.needs === 'text'
    const shown = (shownContent: DocumentContent): DocumentView => ({
      kind: 'shown',
      file,
      entry,
      content: shownContent,
      editable,
      draft: null,
    })
    if (!editable) return show(shown(content), 'same')
    const copy = await service.textCopy(path, { revision: file.revision, size: file.size })
    if (signal.aborted) return null
    // A draft from before (a reload, a crash, another visit to this tab) is what is shown.
    const draft = await (await service.draftStore()).get(projectId, path)
    if (signal.aborted) return null
    if (draft || copy.dirty) {
      if (!copy.dirty) await copy.restoreDraft()
      // The copy holds the person's unpublished text: a change on disk never replaces it (a
      // conflict, if any, is the banner's to resolve).
      const fromDraft: DocumentContent | null = draft?.content.kind === 'text' ? draft.content : null
      return show(shown(fromDraft ?? content), 'editable')
    }
    copy.reconcile(file.revision)
    return show(shown(content), 'same')
  }
  // The adapter's chunk (and what it loads, e.g. pdf.js and its worker) loads meanwhile.
  void entry.load().catch(() => undefined)
  const bytes = await loadBytes(client, { kind: 'project-file', projectId, path }, signal)
  if (signal.aborted) return null
  if (bytes.kind !== 'ok') return show({ kind: 'unsupported', file, bytes })
  let draft: ByteDraft | null = null
  // What a new view shows of a byte editor's pending bytes is its draft (what the editor exported).
  if (entry.edits === 'bytes' && (!changed || !service.get(path))) {
    // A draft left by an earlier visit (a reload, a crash, a failed publish) is what is shown.
    const stored = await (await service.draftStore()).get(projectId, path)
    if (signal.aborted) return null
    if (stored?.content.kind === 'bytes')
      draft = {
        bytes: stored.content.bytes,
        conflictWith: stored.baseline_revision !== file.revision ? file.revision : null,
      }
  }
  const content: DocumentContent = { kind: 'bytes', bytes: draft?.bytes ?? bytes.bytes, mime: bytes.mime }
  return show({ kind: 'shown', file, entry, content, editable: false, draft })
}

/** The view after a read: the one shown stays when the read says it shows that already. */
export function nextView(current: DocumentView, read: ReadResult): DocumentView {
  if (read.kind === 'keep') return current
  const { view, unlessShowing } = read
  if (current.kind !== 'shown' || view.kind !== 'shown' || unlessShowing === null) return view
  if (unlessShowing === 'editable') return current.editable ? current : view
  const same =
    current.file.revision === view.file.revision &&
    current.content.kind === view.content.kind &&
    (view.content.kind !== 'text' || (current.content.kind === 'text' && current.content.text === view.content.text))
  return same ? current : view
}
