import type { DirEntry } from '../../../../shared/protocol'
import { parentPath } from '../../../../shared/paths'
import type { RequestClient, RequestOutcome } from '../../transport'
import type { ScopeSlot } from '../../ui/project-scope'
import { createStore, type Store } from '../../ui/store'

export interface FolderState {
  readonly entries: readonly DirEntry[]
  readonly total: number
  readonly nextCursor: string | null
  readonly loading: boolean
  /** The request that failed, for the view to word; null when the last one succeeded. */
  readonly failure: Exclude<RequestOutcome<unknown>, { kind: 'ok' | 'cancelled' }> | null
  /** A page came back STALE_SNAPSHOT and the listing restarted from page one. */
  readonly reloaded: boolean
}

export interface TreeState {
  readonly folders: ReadonlyMap<string, FolderState>
  readonly expanded: ReadonlySet<string>
  readonly selected: { readonly path: string; readonly kind: DirEntry['kind'] } | null
}

const EMPTY: FolderState = { entries: [], total: 0, nextCursor: null, loading: true, failure: null, reloaded: false }

/**
 * The explorer's state for one project, outside React: each shown folder's listing (paged by the
 * server), which folders are expanded, what is selected. A change hint re-reads only the folders
 * that hold a changed path and are shown, keeping expansion and selection; re-reading keeps the
 * old rows on screen until the new ones arrive, so the tree never flickers to "Loading…".
 */
export class TreeStore {
  readonly store: Store<TreeState> = createStore<TreeState>({ folders: new Map(), expanded: new Set(), selected: null })
  /** Bumped per folder on every new request; an answer for an older one is dropped. */
  private readonly generation = new Map<string, number>()
  /** Aborted when the project's scope goes: listings in flight are forgotten, none start. */
  private readonly lifetime = new AbortController()

  constructor(
    private readonly client: RequestClient,
    private readonly projectId: string,
  ) {}

  folder(path: string): FolderState {
    return this.store.get().folders.get(path) ?? EMPTY
  }

  /** First load of a folder as it is shown (no-op when already loaded or loading). */
  ensure(path: string): void {
    if (this.store.get().folders.has(path)) return
    this.setFolder(path, EMPTY)
    void this.readPages(path, 1, false)
  }

  loadMore(path: string): void {
    const folder = this.folder(path)
    if (folder.nextCursor === null || folder.loading) return
    this.setFolder(path, { ...folder, loading: true })
    const mine = this.bump(path)
    void this.page(path, folder.nextCursor).then((outcome) => {
      if (this.generation.get(path) !== mine) return
      if (outcome.kind === 'ok') {
        this.setFolder(path, {
          ...this.folder(path),
          entries: [...this.folder(path).entries, ...outcome.result.entries],
          total: outcome.result.total,
          nextCursor: outcome.result.next_cursor,
          loading: false,
          failure: null,
          reloaded: false,
        })
      } else if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
        void this.readPages(path, 1, true)
      } else if (outcome.kind !== 'cancelled') {
        this.setFolder(path, { ...this.folder(path), loading: false, failure: outcome })
      }
    })
  }

  retry(path: string): void {
    this.setFolder(path, { ...this.folder(path), loading: true, failure: null })
    void this.readPages(path, 1, false)
  }

  /**
   * Files changed (watcher or journal): re-read every shown folder that holds one of `paths` (or
   * all shown folders), as many pages as were shown before.
   */
  refresh(paths: readonly string[] | 'all'): void {
    const folders = this.store.get().folders
    const targets = new Set<string>()
    if (paths === 'all') for (const path of folders.keys()) targets.add(path)
    else {
      for (const path of paths) {
        const parent = parentPath(path)
        if (folders.has(parent)) targets.add(parent)
        // A changed folder that is shown (e.g. recreated) is re-read too.
        if (folders.has(path)) targets.add(path)
      }
    }
    for (const path of targets) {
      const shown = this.folder(path).entries.length
      const pages = Math.max(1, Math.ceil(shown / 100))
      void this.readPages(path, pages, false)
    }
  }

  toggle(path: string): void {
    this.store.set((state) => {
      const expanded = new Set(state.expanded)
      if (expanded.has(path)) expanded.delete(path)
      else expanded.add(path)
      return { ...state, expanded }
    })
  }

  expand(paths: readonly string[]): void {
    this.store.set((state) => ({ ...state, expanded: new Set([...state.expanded, ...paths]) }))
  }

  select(selected: TreeState['selected']): void {
    this.store.set((state) => ({ ...state, selected }))
  }

  private bump(path: string): number {
    const next = (this.generation.get(path) ?? 0) + 1
    this.generation.set(path, next)
    return next
  }

  /** Forgets every listing in flight (each answers `cancelled` and changes nothing) and any later one. */
  dispose(): void {
    this.lifetime.abort()
  }

  private page(path: string, cursor: string | null) {
    return this.client.request('files.list', cursor === null ? { path } : { path, cursor }, {
      owner: { project_id: this.projectId },
      signal: this.lifetime.signal,
    })
  }

  /** Reads `pages` pages from the start and replaces the folder's rows in one step. */
  private async readPages(path: string, pages: number, reloaded: boolean): Promise<void> {
    const mine = this.bump(path)
    const entries: DirEntry[] = []
    let cursor: string | null = null
    let total = 0
    for (let page = 0; page < pages; page++) {
      const outcome = await this.page(path, cursor)
      if (this.generation.get(path) !== mine) return
      if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
        if (page > 0) return this.readPages(path, pages, true)
      }
      if (outcome.kind !== 'ok') {
        if (outcome.kind !== 'cancelled')
          this.setFolder(path, { ...this.folder(path), loading: false, failure: outcome })
        return
      }
      entries.push(...outcome.result.entries)
      total = outcome.result.total
      cursor = outcome.result.next_cursor
      if (cursor === null) break
    }
    this.setFolder(path, { entries, total, nextCursor: cursor, loading: false, failure: null, reloaded })
  }

  private setFolder(path: string, folder: FolderState): void {
    this.store.set((state) => ({ ...state, folders: new Map(state.folders).set(path, folder) }))
  }
}

/** The explorer's tree of a project, in that project's scope: closing the project disposes it. */
export const treeStoreSlot: ScopeSlot<TreeStore> = {
  name: 'explorer.tree',
  create: ({ client, projectId }) => new TreeStore(client, projectId),
  dispose: (tree) => tree.dispose(),
}
