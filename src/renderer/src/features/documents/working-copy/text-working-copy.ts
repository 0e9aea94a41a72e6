import {
  createAutosave,
  type Autosave,
  type AutosaveState,
  type DraftContent,
  type DraftStore,
  type DraftWrite,
} from '../../drafts'
import type { Publisher } from './publisher'
import type { WorkingCopy } from './working-copy'

/**
 * A text document's working copy: every change is a durable draft first (the drafts store's
 * autosave, spec 08), published a quiet second later through the project's publisher. The draft
 * is the truth until published, so the store's quota pauses typing (a prompt offers Save now).
 */
export class TextWorkingCopy implements WorkingCopy {
  readonly kind = 'text'
  readonly resource: { readonly projectId: string; readonly path: string }
  private readonly autosave: Autosave

  constructor(
    private readonly publisher: Publisher,
    store: DraftStore,
    baseline: { revision: string | null; size: number },
    delayMs?: number,
  ) {
    this.resource = { projectId: publisher.projectId, path: publisher.path }
    this.autosave = createAutosave({
      store,
      projectId: publisher.projectId,
      path: publisher.path,
      baseline,
      publish: publisher.write,
      ...(delayMs !== undefined ? { delayMs } : {}),
    })
  }

  getState(): AutosaveState {
    return this.autosave.getState()
  }

  readonly subscribe = (listener: () => void) => this.autosave.subscribe(listener)

  get revision(): string | null {
    return this.autosave.getState().baseline
  }

  get dirty(): boolean {
    return this.autosave.getState().dirty
  }

  /** Every edit of the text: stored as the draft, then published after the quiet second. */
  change(text: string): Promise<DraftWrite> {
    this.publisher.noteEdit()
    return this.autosave.change({ kind: 'text', text })
  }

  /** A draft an earlier page left (a reload, a crash): adopted and published after the delay. */
  async restoreDraft(): Promise<DraftContent | undefined> {
    if (this.dirty) return undefined
    return (await this.autosave.restore())?.content
  }

  save(): Promise<boolean> {
    return this.autosave.flush()
  }

  /** The quota prompt's "Save now": the editor's text, published without the draft store. */
  saveNow(text: string): Promise<boolean> {
    this.publisher.noteEdit()
    return this.autosave.saveNow({ kind: 'text', text })
  }

  async revert(): Promise<void> {
    await this.autosave.discard()
  }

  overwrite(diskRevision: string | null): Promise<boolean> {
    return this.autosave.overwrite(diskRevision)
  }

  retry(): Promise<boolean> {
    return this.autosave.retry()
  }

  reconcile(revision: string | null): 'mine' | 'disk' {
    // Unpublished text is never replaced by a change on disk; publishing it finds the conflict.
    if (this.dirty) return 'mine'
    this.autosave.rebase(revision)
    return 'disk'
  }

  endEditSession(): void {
    this.publisher.endEditSession()
  }

  dispose(): void {
    this.autosave.dispose()
  }
}
