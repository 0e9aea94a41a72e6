import type { RequestClient } from '../../../transport'
import type { ScopeSlot } from '../../../ui/project-scope'
import type { Store } from '../../../ui/store'
import { dirtyPathsOf, draftStore, markDirty, registerEditor, watchReadCache, type DraftStore } from '../../drafts'
import type { MountedDocument } from '../adapters/types'
import { BytesWorkingCopy } from './bytes-working-copy'
import type { ByteDraft, DocumentView } from './document-view'
import { destroyKept, KeptDocuments, type KeptDocument, type KeptSlot } from './kept-documents'
import { Publisher } from './publisher'
import { TextWorkingCopy } from './text-working-copy'
import type { WorkingCopy } from './working-copy'

export interface WorkingCopyServiceOptions {
  readonly client: RequestClient
  readonly projectId: string
  readonly drafts?: () => Promise<DraftStore>
  /** Quiet time after the last change before publishing (spec 08: about a second). */
  readonly delayMs?: number
}

interface Entry {
  readonly copy: WorkingCopy
  readonly off: () => void
}

/**
 * A project's open documents: one working copy per path (text or bytes), the editors kept alive
 * across tab switches, the tabs' dirty dots and the explorer's view of them (rename, delete and
 * History wait for a working copy's final publish). It outlives a project switch, as the project's
 * tabs do, so a pending publish and a kept editor's undo stack survive switching back and forth;
 * closing a tab releases that path's copy once its last edits are published.
 */
export class WorkingCopyService {
  readonly projectId: string
  readonly client: RequestClient
  private readonly drafts: () => Promise<DraftStore>
  private readonly copies = new Map<string, Entry>()
  // An instance replaced under the same path (another adapter for it) is destroyed with its copy.
  private readonly kept = new KeptDocuments((path, document) => {
    // Its copy is bound to the old instance's export: it publishes what it holds and goes, and the
    // new instance gets a copy of its own.
    const copy = this.get(path)
    if (copy) {
      const entry = this.copies.get(path)
      this.copies.delete(path)
      entry?.off()
      void copy.save().finally(() => copy.dispose())
    }
    this.destroyKept(path, document)
  })
  /**
   * What each kept editor's tab last showed: a tab coming back shows its kept editor at once from
   * this, and re-reads the file behind it (a publish in flight, a read and a download never stand
   * between the person and the editor they left a moment ago).
   */
  private readonly keptViews = new Map<string, Extract<DocumentView, { kind: 'shown' }>>()
  /** The paths the project's tabs show (the workbench reports them as they change). */
  private open: ReadonlySet<string> = new Set()
  private disposed = false

  constructor(private readonly options: WorkingCopyServiceOptions) {
    this.projectId = options.projectId
    this.client = options.client
    this.drafts = options.drafts ?? draftStore
  }

  /** Paths with unpublished changes (the tabs' dots). */
  get dirty(): Store<ReadonlySet<string>> {
    return dirtyPathsOf(this.projectId)
  }

  get(path: string): WorkingCopy | undefined {
    return this.copies.get(path)?.copy
  }

  draftStore(): Promise<DraftStore> {
    return this.drafts()
  }

  /** The text working copy of `path`, created from the revision the tab read. */
  async textCopy(path: string, baseline: { revision: string | null; size: number }): Promise<TextWorkingCopy> {
    const existing = this.get(path)
    if (existing instanceof TextWorkingCopy) return existing
    const store = await this.drafts()
    const again = this.get(path)
    if (again instanceof TextWorkingCopy) return again
    const publisher = new Publisher(this.client, this.projectId, path)
    return this.add(path, new TextWorkingCopy(publisher, store, baseline, this.options.delayMs))
  }

  /**
   * The working copy of a byte editor just mounted (or re-attached after a tab switch, when it is
   * the one that already holds its changes). Its edits leave only through the adapter's export.
   */
  bytesCopy(
    path: string,
    mounted: MountedDocument,
    file: { revision: string; size: number; mime: string },
    draft: ByteDraft | null,
  ): BytesWorkingCopy {
    const existing = this.get(path)
    if (existing instanceof BytesWorkingCopy) return existing
    const copy = new BytesWorkingCopy({
      exportBytes: async (options) => new Uint8Array(await (await mounted.export(options)).arrayBuffer()),
      publisher: new Publisher(this.client, this.projectId, path),
      drafts: this.drafts,
      mime: file.mime,
      baseline: file,
      ...(this.options.delayMs !== undefined ? { delayMs: this.options.delayMs } : {}),
    })
    mounted.on('changed', () => copy.changed())
    if (draft) copy.adopt(draft.bytes, draft.conflictWith)
    return this.add(path, copy)
  }

  private add<C extends WorkingCopy>(path: string, copy: C): C {
    const report = () => markDirty(this.projectId, path, copy.dirty)
    const unsubscribe = copy.subscribe(report)
    const unregister = registerEditor(this.projectId, path, {
      flush: () => copy.save(),
      // Delete with "discard them": the file goes next; until then the editor builds on what it read.
      discard: () => copy.revert(copy.revision),
      close: () => this.close(path),
    })
    this.copies.set(path, {
      copy,
      off: () => {
        unsubscribe()
        unregister()
      },
    })
    report()
    return copy
  }

  /** Publishes, then lets the copy go if nothing is left unpublished (its draft stays otherwise). */
  private async settle(path: string, copy: WorkingCopy): Promise<boolean> {
    const clean = await copy.save()
    if (!clean) return false
    this.drop(path, copy)
    return true
  }

  private drop(path: string, copy: WorkingCopy): void {
    const entry = this.copies.get(path)
    if (entry?.copy !== copy) return
    this.copies.delete(path)
    entry.off()
    copy.dispose()
    // A copy that still holds unpublished bytes leaves its draft, and the dot, for the next visit.
    if (!copy.dirty) markDirty(this.projectId, path, false)
  }

  /** Notes what `path`'s tab shows, for its next view while an editor is kept for it. */
  rememberView(path: string, view: DocumentView): void {
    if (view.kind === 'shown' && view.entry.keep) this.keptViews.set(path, view)
    else this.keptViews.delete(path)
  }

  /** What a new view of `path` shows at once: the last view of the editor kept for it, if any. */
  keptView(path: string): DocumentView | undefined {
    const kept = this.kept.get(path)
    const view = this.keptViews.get(path)
    return kept && view && view.entry.id === kept.adapterId ? view : undefined
  }

  /** Where a tab host keeps `path`'s editor across tab switches. */
  keptSlot(path: string): KeptSlot {
    return this.kept.slot(path)
  }

  /**
   * The tab's view is going away (a switch or a close): the editing session ends and what is left
   * is published now. A byte editor that is not kept goes with its view.
   */
  async leave(path: string, how: { kept: boolean } = { kept: true }): Promise<void> {
    const copy = this.get(path)
    if (!copy) return
    copy.endEditSession()
    await copy.save()
    if (!how.kept && copy.kind === 'bytes') this.drop(path, copy)
  }

  /** A rename: the final publish runs now and the copy of the old name goes. */
  async close(path: string): Promise<boolean> {
    const copy = this.get(path)
    if (!copy) return true
    // A byte editor's view still holds its instance: it goes when its tab closes.
    if (copy.kind === 'bytes') return copy.save()
    return this.settle(path, copy)
  }

  /**
   * Releases what no open tab shows any more: each copy publishes first; one whose publish fails
   * stays (with its kept editor and retryable error), so reopening the file shows it (spec 08).
   */
  releaseClosed(openPaths: ReadonlySet<string>): void {
    this.open = openPaths
    for (const path of new Set([...this.kept.paths(), ...this.copies.keys()]))
      if (!openPaths.has(path)) void this.releaseIfClosed(path)
  }

  /** Publishes, then releases `path`'s copy and kept editor — unless its tab was opened again meanwhile. */
  private async releaseIfClosed(path: string): Promise<void> {
    const copy = this.get(path)
    if (copy && !(await copy.save())) return
    if (this.open.has(path)) return
    if (copy) this.drop(path, copy)
    const document = this.kept.get(path)
    if (document) this.destroyKept(path, document)
  }

  private destroyKept(path: string, document: KeptDocument): void {
    destroyKept(document)
    if (this.kept.get(path) === document) this.keptViews.delete(path)
    this.kept.delete(path, document)
  }

  /** Keeps the page's read cache in step with the engine's change events; returns the unsubscribe. */
  watch(): () => void {
    return watchReadCache(this.client, this.projectId)
  }

  /** Publishes what every copy holds, then releases them all (the page or the project goes away). */
  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    this.open = new Set()
    for (const [path, { copy }] of [...this.copies]) {
      await copy.save()
      this.drop(path, copy)
    }
    for (const path of this.kept.paths()) {
      const document = this.kept.get(path)
      if (document) this.destroyKept(path, document)
    }
  }
}

/**
 * The project's one working-copy service, in its scope: closing the project publishes what every
 * copy holds and releases the kept editors.
 */
export const workingCopiesSlot: ScopeSlot<WorkingCopyService> = {
  name: 'working-copies',
  create: ({ client, projectId }) => new WorkingCopyService({ client, projectId }),
  dispose: (service) => void service.dispose(),
}
