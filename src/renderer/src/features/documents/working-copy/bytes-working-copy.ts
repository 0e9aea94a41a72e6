import { createStore, type Store } from '../../../ui/store'
import type { AutosaveState, DraftStore } from '../../drafts'
import type { Publisher, PublishResult } from './publisher'
import type { WorkingCopy } from './working-copy'

export interface BytesWorkingCopyOptions {
  /** The editor's current bytes (its export; never rebuilds the editor). */
  readonly exportBytes: (options: { final: boolean }) => Promise<Uint8Array>
  readonly publisher: Pick<Publisher, 'projectId' | 'path' | 'publish' | 'noteEdit' | 'endEditSession'>
  /** Where the exported bytes wait durably until published (null: no crash safety, e.g. tests). */
  readonly drafts: (() => Promise<DraftStore>) | null
  readonly mime: string
  readonly baseline: { readonly revision: string; readonly size: number }
  readonly delayMs?: number
  readonly newKey?: () => string
}

interface Attempt {
  readonly bytes: Uint8Array
  readonly key: string
}

export const AUTOSAVE_DELAY_MS = 1000

/**
 * The working copy of an editor that exports whole files as bytes (PDF annotations, images, Office
 * documents): a change starts (or restarts) a short merge window, then the bytes are exported,
 * stored as a durable draft and published with the baseline revision, an idempotency key and the
 * editing session. One publish at a time, so a response can never land out of order; changes made
 * meanwhile are published next. A failed publish keeps the unpublished bytes and retries with the
 * same key; a conflict stops until the person decides.
 *
 * Decision: unlike text, the editor's own state is the truth until its merge window closes: only
 * then is it exported (a 50 MB PDF cannot be serialised per stroke), and it is published even when
 * the draft store refuses it (8 MiB quota), because pausing a person's annotations on quota would
 * lose work; only that version's crash safety is missing. A crash inside the window loses it.
 */
export class BytesWorkingCopy implements WorkingCopy {
  readonly kind = 'bytes'
  readonly resource: { readonly projectId: string; readonly path: string }
  private readonly store: Store<AutosaveState>
  private readonly delayMs: number
  private readonly newKey: () => string
  private timer: ReturnType<typeof setTimeout> | null = null
  /** Changes not yet exported. */
  private changedSinceExport = false
  /** Exported bytes not yet published (kept across failures so a retry sends the same bytes). */
  private attempt: Attempt | null = null
  private running: Promise<void> | null = null
  private again = false
  private disposed = false
  /** The person discarded their bytes: the next read of the file reloads the view. */
  private reloadNext = false

  constructor(private readonly options: BytesWorkingCopyOptions) {
    this.resource = { projectId: options.publisher.projectId, path: options.publisher.path }
    this.delayMs = options.delayMs ?? AUTOSAVE_DELAY_MS
    this.newKey = options.newKey ?? (() => crypto.randomUUID())
    this.store = createStore<AutosaveState>({
      dirty: false,
      publishing: false,
      baseline: options.baseline.revision,
      problem: null,
    })
  }

  getState(): AutosaveState {
    return this.store.get()
  }

  readonly subscribe = (listener: () => void) => this.store.subscribe(listener)

  get revision(): string {
    return this.store.get().baseline ?? ''
  }

  /** Whether anything the editor holds is not on disk yet. */
  get dirty(): boolean {
    return this.changedSinceExport || this.attempt !== null
  }

  private update(patch: Partial<AutosaveState>) {
    this.store.set((state) => ({ ...state, ...patch, dirty: this.dirty }))
  }

  /** The editor changed: publish after the merge window. */
  changed() {
    if (this.disposed) return
    this.options.publisher.noteEdit()
    this.changedSinceExport = true
    // A new change supersedes a failed publish (it is tried again with the change).
    this.update(this.store.get().problem?.kind === 'failed' ? { problem: null } : {})
    if (this.store.get().problem?.kind === 'conflict') return
    this.schedule()
  }

  private schedule() {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = null
      void this.run(false)
    }, this.delayMs)
  }

  /** Publishes now what is unpublished (after the save in flight, if any). */
  private run(final: boolean): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = (async () => {
      do {
        this.again = false
        if (!this.dirty || this.store.get().problem?.kind === 'conflict') break
        this.update({ publishing: true, problem: null })
        let attempt = this.attempt
        try {
          if (this.changedSinceExport || !attempt) {
            this.changedSinceExport = false
            attempt = { bytes: await this.options.exportBytes({ final }), key: this.newKey() }
            this.attempt = attempt
          }
        } catch (error) {
          this.changedSinceExport = true
          this.update({
            publishing: false,
            problem: { kind: 'failed', message: String((error as Error)?.message ?? error) },
          })
          break
        }
        const outcome = await this.publishDrafted(attempt)
        if (this.disposed) return
        if (outcome.kind === 'saved') {
          if (this.attempt === attempt) this.attempt = null
          this.update({ publishing: false, baseline: outcome.revision })
          // Changes made while this publish travelled wait for their own merge window.
          if (this.changedSinceExport && !final && !this.again) this.schedule()
        } else if (outcome.kind === 'conflict') {
          this.update({ publishing: false, problem: { kind: 'conflict', actualRevision: outcome.actualRevision } })
          break
        } else {
          this.update({ publishing: false, problem: { kind: 'failed', message: outcome.message } })
          break
        }
      } while (this.again || (final && this.dirty))
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  /**
   * The exported bytes are stored as the file's draft (the same store, quota and key as text
   * drafts) before they travel, and the draft is removed only when exactly that version is
   * published; a failed or conflicting publish leaves it marked so for the next visit.
   */
  private async publishDrafted(attempt: Attempt): Promise<PublishResult> {
    const { projectId, path } = this.resource
    const baseline = this.revision
    const store = this.options.drafts ? await this.options.drafts() : null
    const written = await store?.put({
      project_id: projectId,
      path,
      content: { kind: 'bytes', bytes: attempt.bytes, mime: this.options.mime },
      baseline_revision: baseline,
      baseline_size: this.options.baseline.size,
      baseline_mtime: null,
      state: 'dirty',
    })
    const published = await this.options.publisher.publish(
      { kind: 'bytes', bytes: attempt.bytes, mime: this.options.mime },
      baseline,
      attempt.key,
    )
    const outcome: PublishResult =
      published.kind === 'saved' && published.revision === null
        ? { kind: 'failed', message: 'the file is gone' }
        : published
    if (store && written?.kind === 'ok') {
      if (outcome.kind === 'saved') await store.discard(projectId, path, written.record.updated_at)
      else await store.put({ ...written.record, state: outcome.kind === 'conflict' ? 'conflict' : 'failed' })
    }
    return outcome
  }

  /**
   * Bytes left unpublished by an earlier visit (a draft after a reload or a crash): the view shows
   * them and they are published like an edit — or, when the file moved on since they were made
   * (`diskRevision` differs from the draft's baseline), held until the person decides.
   */
  adopt(bytes: Uint8Array, conflictWith: string | null) {
    this.attempt = { bytes, key: this.newKey() }
    if (conflictWith !== null) {
      this.update({ problem: { kind: 'conflict', actualRevision: conflictWith } })
      return
    }
    this.update({})
    this.schedule()
  }

  /** The publish in flight (if any) has finished. */
  async settled(): Promise<void> {
    while (this.running) await this.running
  }

  async save(): Promise<boolean> {
    if (this.timer !== null) {
      clearTimeout(this.timer)
      this.timer = null
    }
    await this.settled()
    if (this.dirty) await this.run(true)
    return !this.dirty
  }

  async retry(): Promise<boolean> {
    if (this.store.get().problem?.kind === 'failed') await this.run(false)
    return !this.dirty
  }

  async overwrite(diskRevision: string | null): Promise<boolean> {
    if (diskRevision === null) return false
    this.update({ baseline: diskRevision, problem: null })
    await this.run(false)
    return !this.dirty
  }

  async revert(diskRevision: string | null): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.changedSinceExport = false
    this.attempt = null
    this.reloadNext = true
    this.update({ baseline: diskRevision, problem: null })
    const store = this.options.drafts ? await this.options.drafts() : null
    await store?.discard(this.resource.projectId, this.resource.path)
  }

  reconcile(revision: string | null): 'mine' | 'disk' {
    if (this.reloadNext) {
      this.reloadNext = false
      return 'disk'
    }
    // Our own publish (or nothing new): the editor already shows these bytes.
    if (revision === this.revision) return 'mine'
    if (this.dirty) {
      // Changed underneath unpublished edits: keep them, and let the person choose (spec 08).
      this.update({ problem: { kind: 'conflict', actualRevision: revision } })
      return 'mine'
    }
    this.update({ baseline: revision })
    return 'disk'
  }

  endEditSession(): void {
    this.options.publisher.endEditSession()
  }

  dispose() {
    this.disposed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
