import { createStore, type Store } from '../../../ui/store'
import type { BytePublisher } from './byte-publisher'

export type SaveStatus =
  | { readonly kind: 'clean' }
  /** Changed; published when the merge window closes (~1 s after the last change). */
  | { readonly kind: 'pending' }
  | { readonly kind: 'saving' }
  /** The last publish failed; the editor and its changes stay, Retry (or the next change) tries again. */
  | { readonly kind: 'failed'; readonly message: string }
  /** The file changed underneath: nothing is published until the person decides (spec 08). */
  | { readonly kind: 'conflict'; readonly message: string }

export interface AutosaveState {
  readonly status: SaveStatus
  /** The revision the next publish expects on disk (the one opened, then each one published). */
  readonly baseline: string
}

export interface BinaryAutosaveOptions {
  /** The editor's current bytes (its export; never rebuilds the editor). */
  readonly exportBytes: (options: { final: boolean }) => Promise<Uint8Array>
  readonly publisher: BytePublisher
  readonly baseline: string
  readonly delayMs?: number
  readonly newKey?: () => string
}

interface Attempt {
  readonly bytes: Uint8Array
  readonly key: string
}

export const AUTOSAVE_DELAY_MS = 1000

/**
 * Autosave for an editor that exports whole files as bytes (the PDF reader's annotations): a
 * change starts (or restarts) a short merge window, then the bytes are exported and published
 * with the baseline revision and an idempotency key. One publish at a time, so a response can
 * never land out of order; changes made meanwhile are published next. A failed publish keeps the
 * unpublished bytes and retries with the same key; a conflict stops until the person decides.
 *
 * Decision: this is not the text autosave (`drafts/autosave.ts`) with bytes in it, although both
 * end in `files.write` with a baseline and a key. Text is stored as a draft on every keystroke and
 * the stored draft is what gets published, so the draft store's quota pauses typing. Here the
 * editor's own state is the truth until its merge window closes: only then is it exported (a
 * 50 MB PDF cannot be serialised per stroke), and it is published even when the draft store
 * refuses it (8 MiB quota), because pausing a person's annotations on quota would lose work. One
 * class would carry both policies behind flags; the shared parts are the publish call and its
 * base64 (`ui/binary-text.ts`).
 */
export class BinaryAutosave {
  readonly store: Store<AutosaveState>
  private readonly delayMs: number
  private readonly newKey: () => string
  private timer: ReturnType<typeof setTimeout> | null = null
  /** Changes not yet exported. */
  private dirty = false
  /** Exported bytes not yet published (kept across failures so a retry sends the same bytes). */
  private attempt: Attempt | null = null
  private running: Promise<void> | null = null
  private again = false
  private disposed = false

  constructor(private readonly options: BinaryAutosaveOptions) {
    this.delayMs = options.delayMs ?? AUTOSAVE_DELAY_MS
    this.newKey = options.newKey ?? (() => crypto.randomUUID())
    this.store = createStore<AutosaveState>({ status: { kind: 'clean' }, baseline: options.baseline })
  }

  private setStatus(status: SaveStatus) {
    this.store.set((state) => ({ ...state, status }))
  }

  get baseline(): string {
    return this.store.get().baseline
  }

  /** Whether anything the editor holds is not on disk yet. */
  get unpublished(): boolean {
    return this.dirty || this.attempt !== null
  }

  /** The editor changed: publish after the merge window. */
  changed() {
    if (this.disposed) return
    this.dirty = true
    const { status } = this.store.get()
    if (status.kind === 'conflict') return
    if (status.kind !== 'saving') this.setStatus({ kind: 'pending' })
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
        if (!this.unpublished || this.store.get().status.kind === 'conflict') break
        this.setStatus({ kind: 'saving' })
        let attempt = this.attempt
        try {
          if (this.dirty || !attempt) {
            this.dirty = false
            attempt = { bytes: await this.options.exportBytes({ final }), key: this.newKey() }
            this.attempt = attempt
          }
        } catch (error) {
          this.dirty = true
          this.setStatus({ kind: 'failed', message: String((error as Error)?.message ?? error) })
          break
        }
        const outcome = await this.options.publisher.saveBytes(attempt.bytes, this.baseline, attempt.key)
        if (this.disposed) return
        if (outcome.kind === 'saved') {
          if (this.attempt === attempt) this.attempt = null
          this.store.set({ status: { kind: this.dirty ? 'pending' : 'clean' }, baseline: outcome.revision })
          // Changes made while this publish travelled wait for their own merge window.
          if (this.dirty && !final && !this.again) this.schedule()
        } else if (outcome.kind === 'conflict') {
          this.setStatus({ kind: 'conflict', message: outcome.message })
          break
        } else {
          this.setStatus({ kind: 'failed', message: outcome.message })
          break
        }
      } while (this.again || (final && this.unpublished))
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  /**
   * Bytes left unpublished by an earlier visit (a draft after a reload or a crash): the view shows
   * them and they are published like an edit — or, when the file moved on since they were made
   * (`conflict`), held until the person decides.
   */
  adopt(bytes: Uint8Array, conflict?: string) {
    this.attempt = { bytes, key: this.newKey() }
    if (conflict !== undefined) {
      this.setStatus({ kind: 'conflict', message: conflict })
      return
    }
    this.setStatus({ kind: 'pending' })
    this.schedule()
  }

  /** The publish in flight (if any) has finished. */
  async settled(): Promise<void> {
    while (this.running) await this.running
  }

  /**
   * Publishes everything now (closing, renaming, restoring wait for this). True when nothing is
   * left unpublished.
   */
  async flush(): Promise<boolean> {
    if (this.timer !== null) {
      clearTimeout(this.timer)
      this.timer = null
    }
    await this.settled()
    if (this.unpublished) await this.run(true)
    return !this.unpublished
  }

  retry() {
    if (this.store.get().status.kind === 'failed') void this.run(false)
  }

  /** "Overwrite with mine": the next publish expects the revision now on disk. */
  overwrite(revision: string) {
    this.store.set({ status: { kind: 'pending' }, baseline: revision })
    void this.run(false)
  }

  /** "Discard mine": the editor is reloaded from `revision`; nothing unpublished remains. */
  discard(revision: string) {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.dirty = false
    this.attempt = null
    this.store.set({ status: { kind: 'clean' }, baseline: revision })
  }

  /** The file changed underneath while changes were unpublished. */
  conflict(message: string) {
    this.setStatus({ kind: 'conflict', message })
  }

  dispose() {
    this.disposed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
