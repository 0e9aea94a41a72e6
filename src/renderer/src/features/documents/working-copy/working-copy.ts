import type { AutosaveState } from '../../drafts'

/**
 * One open document's editing state, outside any view (in the spirit of VS Code's `IWorkingCopy`):
 * the file it edits, the revision it builds on, whether it holds unpublished changes, its durable
 * draft (the backup a reload or a crash brings back), and the conflict when the file changed
 * underneath. Two kinds: text (the draft is written on every change; `TextWorkingCopy`) and bytes
 * (an editor that exports whole files — PDF annotations, images, Office; `BytesWorkingCopy`). Both
 * publish through one `Publisher`, so they group saves into editing sessions the same way; the
 * project's `WorkingCopyService` owns and disposes them.
 */
export interface WorkingCopy {
  readonly kind: 'text' | 'bytes'
  readonly resource: { readonly projectId: string; readonly path: string }
  /** What the tab's dot, the header and the banners show (one shape for both kinds). */
  getState(): AutosaveState
  subscribe(listener: () => void): () => void
  /** The revision on disk the next publish expects. */
  readonly revision: string | null
  /** Unpublished changes exist (in the editor or in its draft). */
  readonly dirty: boolean
  /** Publishes everything now (close, rename and restore wait for it); true when nothing is left. */
  save(): Promise<boolean>
  /** "Discard mine": forgets the unpublished changes and the draft; the view shows `diskRevision`. */
  revert(diskRevision: string | null): Promise<void>
  /** "Keep mine and overwrite": publishes over `diskRevision`, the version the person saw. */
  overwrite(diskRevision: string | null): Promise<boolean>
  /** Publishes again after a failure (the same content goes with the same idempotency key). */
  retry(): Promise<boolean>
  /**
   * The file was read at `revision` (the watcher or the journal said it changed): `mine` when the
   * view keeps what it shows (its own publish coming back, or unpublished changes — a conflict if
   * the file moved on), `disk` when the view shows the file as read.
   */
  reconcile(revision: string | null): 'mine' | 'disk'
  /** The person left the tab or restored a version: the next edit starts a new History version. */
  endEditSession(): void
  dispose(): void
}

export type { AutosaveState as WorkingCopyState } from '../../drafts'
