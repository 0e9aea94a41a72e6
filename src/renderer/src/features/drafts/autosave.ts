import { toBase64 } from '../../ui/binary-text'
import type { DraftContent, DraftRecord, DraftStore, DraftWrite } from './draft-store'

/** What a publish sends: the engine's `files.write`, with its idempotency key. */
export type PublishOutcome =
  | { kind: 'ok'; result: { transaction_id: string; revision: string | null } }
  | { kind: 'error'; error: { code: string; message: string; details?: Record<string, unknown> | undefined } }
  | { kind: 'timeout' | 'cancelled' | 'disconnected' }

/**
 * Sends one whole new content of the file, if it is still at `expected_revision`. The caller's
 * publisher adds what groups saves into an editing session (`edit_session_id`).
 */
export type PublishFn = (
  payload: {
    path: string
    content?: string
    content_base64?: string
    expected_revision: string | null
  },
  idempotencyKey: string,
) => Promise<PublishOutcome>

export type AutosaveProblem =
  /** The file changed underneath: the draft keeps its baseline; the person chooses (banner). */
  | { kind: 'conflict'; actualRevision: string | null }
  /** Publishing failed for another reason; the draft is kept and a retry is offered. */
  | { kind: 'failed'; message: string }
  /** Storing the draft would pass the quota: input that grows it is paused (visible prompt). */
  | { kind: 'quota'; count: number; bytes: number }
  /** The browser refused to store (QuotaExceededError…): the last persisted version stands. */
  | { kind: 'storage'; message: string }

/**
 * The save state of an open document, one shape for text and byte editors (the working copy's
 * state): what the tab's dot, the header note and the banners show.
 */
export interface AutosaveState {
  /** Unpublished changes exist (the tab's dirty dot). */
  readonly dirty: boolean
  readonly publishing: boolean
  /** The revision the next publish is checked against. */
  readonly baseline: string | null
  readonly problem: AutosaveProblem | null
}

export interface Autosave {
  getState(): AutosaveState
  subscribe(listener: () => void): () => void
  /** A draft left by an earlier page (reload, crash): adopted, shown, and published after the delay. */
  restore(): Promise<DraftRecord | undefined>
  /** Every edit: stored durably first (one transaction), then published ~1 s after the last one. */
  change(content: DraftContent): Promise<DraftWrite>
  /** Binary editors (PDF annotations, images): the exported bytes as the draft. */
  saveBytes(bytes: Uint8Array, mime: string): Promise<DraftWrite>
  /** Publishes now and waits: close, rename and version restore call this first. True when clean. */
  flush(): Promise<boolean>
  /** "Keep my draft and overwrite": publishes over `diskRevision` (what the person compared against). */
  overwrite(diskRevision: string | null): Promise<boolean>
  /** "Discard my draft": forgets the unpublished changes (the caller shows the disk version). */
  discard(): Promise<void>
  /** The file is clean and changed on disk (an outside edit, a restore): the new baseline. */
  rebase(revision: string | null): void
  retry(): Promise<boolean>
  /**
   * Publishes `content` as it is in the editor, without the draft store (the quota prompt's
   * "Save now": the store refused the newest edit, the file still gets it).
   */
  saveNow(content: DraftContent): Promise<boolean>
  dispose(): void
}

export interface AutosaveOptions {
  readonly store: DraftStore
  readonly publish: PublishFn
  readonly projectId: string
  readonly path: string
  readonly baseline: { revision: string | null; size: number; mtime?: number | null }
  /** Quiet time after the last change before publishing (spec 08: about a second). */
  readonly delayMs?: number
  readonly newId?: () => string
}

/**
 * One document's autosave (spec 08 "Editing and autosave"): a durable draft first, a publish
 * through `files.write` with the baseline revision and an idempotency key after a quiet second.
 * Publishes run one at a time, so an answer can never land on a newer draft: a success removes the
 * draft only if it is still the version that was sent, and otherwise moves the newer draft onto
 * the new baseline and publishes again. A conflict or failure keeps the draft.
 */
export function createAutosave(options: AutosaveOptions): Autosave {
  const delayMs = options.delayMs ?? 1000
  const newId = options.newId ?? (() => crypto.randomUUID())
  const listeners = new Set<() => void>()
  let state: AutosaveState = { dirty: false, publishing: false, baseline: options.baseline.revision, problem: null }
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<boolean> | undefined
  let again = false
  let disposed = false
  // Store operations of this document in order (a baseline update never interleaves an edit).
  let storeQueue: Promise<unknown> = Promise.resolve()
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = storeQueue.then(work, work)
    storeQueue = next.catch(() => undefined)
    return next
  }
  // One idempotency key per draft version: a retry of the same bytes is the same request.
  const keys = new Map<number, string>()

  const set = (patch: Partial<AutosaveState>) => {
    state = { ...state, ...patch }
    for (const listener of [...listeners]) listener()
  }
  const schedule = (ms = delayMs) => {
    if (disposed) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = undefined
      void publish(false)
    }, ms)
  }

  async function store(content: DraftContent, stateOfDraft: DraftRecord['state'] = 'dirty'): Promise<DraftWrite> {
    return serial(() =>
      options.store.put({
        project_id: options.projectId,
        path: options.path,
        content,
        baseline_revision: state.baseline,
        baseline_size: options.baseline.size,
        baseline_mtime: options.baseline.mtime ?? null,
        state: stateOfDraft,
      }),
    )
  }

  async function publishOnce(force: boolean, expectedOverride?: string | null): Promise<boolean> {
    const draft = await serial(() => options.store.get(options.projectId, options.path))
    if (!draft) {
      set({ dirty: false, problem: state.problem?.kind === 'quota' ? null : state.problem })
      return true
    }
    if (draft.state === 'conflict' && !force) {
      set({ dirty: true })
      return false
    }
    let key = keys.get(draft.updated_at)
    if (!key || expectedOverride !== undefined) {
      key = newId()
      keys.set(draft.updated_at, key)
    }
    set({ publishing: true })
    const outcome = await options.publish(
      {
        path: options.path,
        ...(draft.content.kind === 'text'
          ? { content: draft.content.text }
          : { content_base64: toBase64(draft.content.bytes) }),
        expected_revision: expectedOverride !== undefined ? expectedOverride : draft.baseline_revision,
      },
      key,
    )
    set({ publishing: false })
    if (outcome.kind === 'ok') {
      keys.delete(draft.updated_at)
      set({ baseline: outcome.result.revision, problem: null })
      await serial(() => options.store.discard(options.projectId, options.path, draft.updated_at))
      const newer = await serial(() => options.store.get(options.projectId, options.path))
      if (newer) {
        // Typed while the publish was out: the newer draft now builds on what was published.
        await serial(() => options.store.put({ ...newer, baseline_revision: outcome.result.revision, state: 'dirty' }))
        set({ dirty: true })
        return false
      }
      set({ dirty: false })
      return true
    }
    if (outcome.kind === 'error' && outcome.error.code === 'CONFLICT') {
      const actual = (outcome.error.details?.actual_revision as string | null | undefined) ?? null
      await serial(() => options.store.put({ ...draft, state: 'conflict' }))
      set({ dirty: true, problem: { kind: 'conflict', actualRevision: actual } })
      return false
    }
    const message =
      outcome.kind === 'error'
        ? outcome.error.message
        : outcome.kind === 'timeout'
          ? 'The save timed out.'
          : 'Not connected.'
    const marked = await serial(() => options.store.put({ ...draft, state: 'failed' }))
    // The same bytes retried are the same request: the key follows the re-stamped record.
    if (marked.kind === 'ok') keys.set(marked.record.updated_at, key)
    set({ dirty: true, problem: { kind: 'failed', message } })
    return false
  }

  async function publish(force: boolean, expectedOverride?: string | null): Promise<boolean> {
    if (running) {
      again = true
      await running
      if (!again) return !state.dirty
    }
    again = false
    running = publishOnce(force, expectedOverride)
    try {
      let clean = await running
      // A newer draft appeared while publishing: publish it too (still one at a time).
      while (!clean && state.dirty && state.problem === null && !disposed) {
        running = publishOnce(false)
        clean = await running
      }
      return clean
    } finally {
      running = undefined
    }
  }

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async restore() {
      const draft = await serial(() => options.store.get(options.projectId, options.path))
      if (!draft) return undefined
      set({
        dirty: true,
        baseline: draft.baseline_revision,
        problem: draft.state === 'conflict' ? { kind: 'conflict', actualRevision: null } : null,
      })
      if (draft.state !== 'conflict') schedule()
      return draft
    },
    async change(content) {
      const written = await store(content, state.problem?.kind === 'conflict' ? 'conflict' : 'dirty')
      if (written.kind === 'ok') {
        set({
          dirty: true,
          problem: state.problem?.kind === 'quota' || state.problem?.kind === 'storage' ? null : state.problem,
        })
        if (state.problem?.kind !== 'conflict') schedule()
      } else if (written.kind === 'quota') {
        set({ problem: { kind: 'quota', count: written.count, bytes: written.bytes } })
      } else {
        set({ problem: { kind: 'storage', message: written.message } })
      }
      return written
    },
    saveBytes(bytes, mime) {
      return this.change({ kind: 'bytes', bytes, mime })
    },
    async flush() {
      if (timer) clearTimeout(timer)
      timer = undefined
      return publish(false)
    },
    async overwrite(diskRevision) {
      if (timer) clearTimeout(timer)
      set({ problem: null })
      return publish(true, diskRevision)
    },
    async discard() {
      if (timer) clearTimeout(timer)
      timer = undefined
      await serial(() => options.store.discard(options.projectId, options.path))
      set({ dirty: false, problem: null })
    },
    rebase(revision) {
      if (!state.dirty) set({ baseline: revision })
    },
    async retry() {
      set({ problem: null })
      return publish(false)
    },
    async saveNow(content) {
      if (timer) clearTimeout(timer)
      timer = undefined
      if (running) await running
      set({ publishing: true })
      const outcome = await options.publish(
        {
          path: options.path,
          ...(content.kind === 'text' ? { content: content.text } : { content_base64: toBase64(content.bytes) }),
          expected_revision: state.baseline,
        },
        newId(),
      )
      set({ publishing: false })
      if (outcome.kind !== 'ok') {
        const conflict = outcome.kind === 'error' && outcome.error.code === 'CONFLICT'
        set({
          problem: conflict
            ? { kind: 'conflict', actualRevision: (outcome.error.details?.actual_revision as string | null) ?? null }
            : { kind: 'failed', message: outcome.kind === 'error' ? outcome.error.message : 'Not saved.' },
        })
        return false
      }
      await serial(() => options.store.discard(options.projectId, options.path))
      set({ baseline: outcome.result.revision, dirty: false, problem: null })
      return true
    },
    dispose() {
      disposed = true
      if (timer) clearTimeout(timer)
      listeners.clear()
    },
  }
}
