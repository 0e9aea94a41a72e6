import type { KnownEventFrame, PermissionMode } from '../../../../shared/protocol'
import type { RequestClient, RequestOutcome } from '../../transport'
import { onProjectEvent } from '../../ui/project-events'
import { createStore, type Store } from '../../ui/store'
import { pruneLiveTurns, withLivePart, type LiveTurns } from './transcript-model'
import type { Failure, Session, TranscriptData } from './types'

export interface SessionsState {
  readonly sessions: readonly Session[]
  readonly loaded: boolean
  readonly failure: Failure | null
  /** The session the person chose; null (or one that is gone) follows the most recent active one. */
  readonly chosenId: string | null
}

export interface TranscriptState {
  /** The last `session.transcript` answer; kept through a failed re-read, so nothing blanks. */
  readonly data: TranscriptData | null
  readonly failure: Failure | null
  /** Parts `turn.part` announced for turns still running, laid over `data` when read. */
  readonly live: LiveTurns
}

export interface SessionChanges {
  readonly title?: string
  readonly archived?: boolean
  readonly permission_mode?: PermissionMode
}

interface TranscriptEntry {
  readonly store: Store<TranscriptState>
  observers: number
  /** Shown at least once: an entry made by a render that never watched it is not evicted under it. */
  shown: boolean
  controller: AbortController
  /** Which read this is; an answer to an older read never replaces a newer one. */
  issued: number
  applied: number
  /** A read is on its way; further hints wait for it instead of piling up requests. */
  inFlight: boolean
  again: boolean
}

const NO_TURNS: LiveTurns = new Map()
const NO_TRANSCRIPT: TranscriptState = { data: null, failure: null, live: NO_TURNS }
/**
 * Transcripts nobody shows are kept (switching back is instant, then re-read) up to this many;
 * the least recently shown goes first. A transcript holds every part of every turn, so the cache
 * is bounded by count.
 */
export const KEPT_TRANSCRIPTS = 8

/**
 * One project's sessions and their transcripts, outside React (spec: Chat and Review read one
 * store). The list, the chosen session and each transcript survive a remount; while something
 * shows them they follow the project's events — `session.updated` re-reads the list and the
 * session's transcript, `turn.finished` and a finished restore (`intent.progress` done = total)
 * re-read the transcript, `turn.part` lays each new version of a part over the running turn so text
 * streams without a read per token. When the last view leaves, events stop and the next view
 * re-reads (what happened meanwhile was not seen).
 *
 * The listener bookkeeping is `ui/store` plus one project event subscription, whose frames arrive
 * already checked against the protocol's event schemas.
 */
export class SessionStore {
  readonly sessions: Store<SessionsState> = createStore<SessionsState>({
    sessions: [],
    loaded: false,
    failure: null,
    chosenId: null,
  })
  private readonly transcripts = new Map<string, TranscriptEntry>()
  private sessionObservers = 0
  private listController = new AbortController()
  private listGeneration = 0
  private stopEvents: (() => void) | null = null

  constructor(
    private readonly client: RequestClient,
    private readonly projectId: string,
  ) {}

  private get owner() {
    return { project_id: this.projectId }
  }

  /** Shows the session list: read now, then kept current until the returned function is called. */
  watchSessions(): () => void {
    this.sessionObservers += 1
    if (this.sessionObservers === 1) this.listController = new AbortController()
    this.syncEvents()
    void this.reloadSessions()
    let released = false
    return () => {
      if (released) return
      released = true
      this.sessionObservers -= 1
      if (this.sessionObservers === 0) this.listController.abort()
      this.syncEvents()
    }
  }

  /** Reads the list again; a later read's answer wins over an earlier one that answers late. */
  async reloadSessions(): Promise<void> {
    const mine = ++this.listGeneration
    const outcome = await this.client.request(
      'session.list',
      { include_archived: true },
      { owner: this.owner, signal: this.listController.signal },
    )
    if (outcome.kind === 'cancelled' || mine !== this.listGeneration) return
    this.sessions.set((s) =>
      outcome.kind === 'ok'
        ? { ...s, sessions: outcome.result.sessions, loaded: true, failure: null }
        : { ...s, loaded: true, failure: outcome },
    )
  }

  select(sessionId: string | null): void {
    this.sessions.set((s) => (s.chosenId === sessionId ? s : { ...s, chosenId: sessionId }))
  }

  /** Creates a session and shows it; resolves to it, or to the failure. */
  async create(title?: string): Promise<RequestOutcome<Session>> {
    const outcome = await this.client.request('session.create', title === undefined ? {} : { title }, {
      owner: this.owner,
    })
    if (outcome.kind === 'ok') {
      const created = outcome.result
      this.sessions.set((s) => ({
        ...s,
        sessions: [created, ...s.sessions.filter((x) => x.session_id !== created.session_id)],
        chosenId: created.session_id,
      }))
      void this.reloadSessions()
    }
    return outcome
  }

  async update(sessionId: string, changes: SessionChanges): Promise<RequestOutcome<Session>> {
    const outcome = await this.client.request(
      'session.update',
      { session_id: sessionId, ...changes },
      { owner: this.owner },
    )
    if (outcome.kind === 'ok') {
      const updated = outcome.result
      this.sessions.set((s) => ({
        ...s,
        sessions: s.sessions.map((x) => (x.session_id === updated.session_id ? updated : x)),
        // An archived session leaves the pane for the next active one; reopening one shows it.
        chosenId:
          changes.archived === true
            ? (s.sessions.find((x) => x.state === 'active' && x.session_id !== sessionId)?.session_id ?? null)
            : s.chosenId,
      }))
      void this.reloadSessions()
    }
    return outcome
  }

  /** One session's transcript as last read (the same object for the same session while kept). */
  transcript(sessionId: string): Store<TranscriptState> {
    return this.entry(sessionId).store
  }

  /** Shows a transcript: read now, then kept current until the returned function is called. */
  watchTranscript(sessionId: string): () => void {
    const entry = this.entry(sessionId)
    // Most recently shown last: eviction takes from the front.
    this.transcripts.delete(sessionId)
    this.transcripts.set(sessionId, entry)
    entry.observers += 1
    entry.shown = true
    if (entry.observers === 1) entry.controller = new AbortController()
    this.syncEvents()
    this.read(sessionId, entry)
    let released = false
    return () => {
      if (released) return
      released = true
      entry.observers -= 1
      if (entry.observers === 0) {
        entry.controller.abort()
        entry.inFlight = false
        entry.again = false
        // Parts seen while shown are stale once nobody listens: the next read starts clean.
        entry.store.set((s) => (s.live.size === 0 ? s : { ...s, live: NO_TURNS }))
        this.evict()
      }
      this.syncEvents()
    }
  }

  /** Reads a shown transcript again now (after a prompt, a branch switch, a restore). */
  reloadTranscript(sessionId: string): void {
    const entry = this.transcripts.get(sessionId)
    if (entry && entry.observers > 0) this.read(sessionId, entry)
  }

  private entry(sessionId: string): TranscriptEntry {
    let entry = this.transcripts.get(sessionId)
    if (!entry) {
      entry = {
        store: createStore(NO_TRANSCRIPT),
        observers: 0,
        shown: false,
        controller: new AbortController(),
        issued: 0,
        applied: 0,
        inFlight: false,
        again: false,
      }
      this.transcripts.set(sessionId, entry)
    }
    return entry
  }

  private evict(): void {
    const idle = (e: TranscriptEntry) => e.observers === 0 && e.shown
    let unobserved = [...this.transcripts.values()].filter(idle).length
    for (const [sessionId, entry] of this.transcripts) {
      if (unobserved <= KEPT_TRANSCRIPTS) return
      if (!idle(entry)) continue
      this.transcripts.delete(sessionId)
      unobserved -= 1
    }
  }

  private read(sessionId: string, entry: TranscriptEntry): void {
    if (entry.inFlight) {
      entry.again = true
      return
    }
    entry.inFlight = true
    entry.again = false
    const number = ++entry.issued
    const { controller } = entry
    void this.client
      .request('session.transcript', { session_id: sessionId }, { owner: this.owner, signal: controller.signal })
      .then((outcome) => {
        // An aborted read belongs to a view that left; a newer watch may have one on its way.
        if (controller.signal.aborted) return
        entry.inFlight = false
        if (outcome.kind !== 'cancelled' && number > entry.applied) {
          entry.applied = number
          entry.store.set((s) =>
            outcome.kind === 'ok'
              ? { data: outcome.result, failure: null, live: pruneLiveTurns(s.live, outcome.result) }
              : { ...s, failure: outcome },
          )
        }
        if (entry.again) this.read(sessionId, entry)
      })
  }

  /** One project event subscription while anything is shown; none otherwise. */
  private syncEvents(): void {
    const wanted = this.sessionObservers > 0 || [...this.transcripts.values()].some((e) => e.observers > 0)
    if (wanted && this.stopEvents === null) {
      this.stopEvents = onProjectEvent(this.client, this.projectId, (frame) => this.onFrame(frame))
    } else if (!wanted && this.stopEvents !== null) {
      this.stopEvents()
      this.stopEvents = null
    }
  }

  private shown(sessionId: unknown): { sessionId: string; entry: TranscriptEntry } | null {
    if (typeof sessionId !== 'string') return null
    const entry = this.transcripts.get(sessionId)
    return entry && entry.observers > 0 ? { sessionId, entry } : null
  }

  private onFrame(frame: KnownEventFrame): void {
    switch (frame.event) {
      case 'turn.part': {
        const target = this.shown(frame.data.session_id)
        if (target === null) return
        const { turn_id, index, part } = frame.data
        target.entry.store.set((s) => ({ ...s, live: withLivePart(s.live, turn_id, index, part) }))
        return
      }
      case 'turn.finished': {
        const target = this.shown(frame.data.session_id)
        if (target) this.read(target.sessionId, target.entry)
        return
      }
      case 'session.updated': {
        if (this.sessionObservers > 0) void this.reloadSessions()
        const target = this.shown(frame.data.session_id)
        if (target) this.read(target.sessionId, target.entry)
        return
      }
      case 'intent.progress': {
        if (frame.data.done !== frame.data.total) return
        const target = this.shown(frame.data.session_id)
        if (target) this.read(target.sessionId, target.entry)
        return
      }
    }
  }
}

const stores = new WeakMap<RequestClient, Map<string, SessionStore>>()

/** The project's session store for this client, made on first use and kept for the page's life. */
export function sessionStoreFor(client: RequestClient, projectId: string): SessionStore {
  let byProject = stores.get(client)
  if (!byProject) {
    byProject = new Map()
    stores.set(client, byProject)
  }
  let store = byProject.get(projectId)
  if (!store) {
    store = new SessionStore(client, projectId)
    byProject.set(projectId, store)
  }
  return store
}
