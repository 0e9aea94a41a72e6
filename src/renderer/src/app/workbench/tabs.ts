import { createStore, type Store } from '../../ui/store'

/** A centre tab: a file, the Review tab, or (later) a document. */
export type Tab =
  | { readonly id: string; readonly kind: 'file'; readonly path: string; readonly preview: boolean }
  | { readonly id: 'review'; readonly kind: 'review' }

export interface TabsState {
  readonly tabs: readonly Tab[]
  readonly activeId: string | null
  /** Most recently used first (for closing the active tab and Ctrl+Tab). */
  readonly recent: readonly string[]
}

const fileTabId = (path: string) => `file:${path}`

/**
 * The centre's tab model (VS Code's preview/pinned rules), kept outside React so a re-mounted
 * centre finds its tabs, and per tab the view state its editor saved (scroll, selection).
 */
export class TabsModel {
  readonly store: Store<TabsState> = createStore<TabsState>({ tabs: [], activeId: null, recent: [] })
  private readonly viewStates = new Map<string, unknown>()

  get state(): TabsState {
    return this.store.get()
  }

  /**
   * Opens a file. A single click opens it as the preview tab (replacing the current preview); a
   * double click, an edit or `pinned` pins it. A file already open is focused, never opened twice.
   */
  openFile(path: string, options: { pinned?: boolean } = {}): void {
    const id = fileTabId(path)
    this.store.set((state) => {
      const existing = state.tabs.find((tab) => tab.id === id)
      let tabs: Tab[]
      if (existing) {
        tabs = state.tabs.map((tab) =>
          tab.id === id && tab.kind === 'file' && options.pinned ? { ...tab, preview: false } : tab,
        )
      } else {
        const tab: Tab = { id, kind: 'file', path, preview: !options.pinned }
        const previewIndex = state.tabs.findIndex((t) => t.kind === 'file' && t.preview)
        if (previewIndex >= 0) {
          const replaced = state.tabs[previewIndex]
          if (replaced) this.viewStates.delete(replaced.id)
          tabs = [...state.tabs]
          tabs[previewIndex] = tab
        } else {
          const activeIndex = state.tabs.findIndex((t) => t.id === state.activeId)
          tabs = [...state.tabs]
          tabs.splice(activeIndex >= 0 ? activeIndex + 1 : tabs.length, 0, tab)
        }
      }
      return activate({ ...state, tabs }, id)
    })
  }

  openReview(): void {
    this.store.set((state) => {
      const tabs: Tab[] = state.tabs.some((t) => t.kind === 'review')
        ? [...state.tabs]
        : [...state.tabs, { id: 'review', kind: 'review' }]
      return activate({ ...state, tabs }, 'review')
    })
  }

  activate(id: string): void {
    this.store.set((state) => (state.tabs.some((t) => t.id === id) ? activate(state, id) : state))
  }

  pin(id: string): void {
    this.store.set((state) => ({
      ...state,
      tabs: state.tabs.map((tab) => (tab.id === id && tab.kind === 'file' ? { ...tab, preview: false } : tab)),
    }))
  }

  close(id: string): void {
    this.viewStates.delete(id)
    this.store.set((state) => {
      const tabs = state.tabs.filter((tab) => tab.id !== id)
      const recent = state.recent.filter((r) => r !== id)
      const activeId = state.activeId === id ? (recent[0] ?? null) : state.activeId
      return { tabs, recent, activeId }
    })
  }

  closeOthers(id: string): void {
    for (const tab of this.state.tabs) if (tab.id !== id) this.viewStates.delete(tab.id)
    this.store.set((state) => ({
      tabs: state.tabs.filter((tab) => tab.id === id),
      recent: state.recent.filter((r) => r === id),
      activeId: state.tabs.some((t) => t.id === id) ? id : null,
    }))
  }

  /** Next (+1) or previous (−1) tab in strip order, wrapping. */
  cycle(step: 1 | -1): void {
    this.store.set((state) => {
      if (state.tabs.length === 0) return state
      const index = state.tabs.findIndex((t) => t.id === state.activeId)
      const next = state.tabs[(index + step + state.tabs.length) % state.tabs.length]
      return next ? activate(state, next.id) : state
    })
  }

  /** A file was renamed or deleted (by the explorer or outside): its tab follows or closes. */
  pathGone(path: string, movedTo: string | null): void {
    const id = fileTabId(path)
    if (!this.state.tabs.some((t) => t.id === id)) return
    if (movedTo === null) {
      this.close(id)
      return
    }
    const nextId = fileTabId(movedTo)
    const viewState = this.viewStates.get(id)
    this.viewStates.delete(id)
    if (viewState !== undefined) this.viewStates.set(nextId, viewState)
    this.store.set((state) => ({
      tabs: state.tabs.map((tab) =>
        tab.id === id && tab.kind === 'file' ? { ...tab, id: nextId, path: movedTo } : tab,
      ),
      recent: state.recent.map((r) => (r === id ? nextId : r)),
      activeId: state.activeId === id ? nextId : state.activeId,
    }))
  }

  /**
   * Fills an empty model with a restored window's file tabs (strip order kept), the active one and
   * each tab's view state. A model that already has tabs is left alone: what the person opened
   * since the window loaded wins over what the last window had.
   */
  restore(
    entries: readonly { readonly path: string; readonly pinned: boolean }[],
    activePath: string | null,
    viewStateOf: (path: string) => unknown,
  ): void {
    if (this.state.tabs.length > 0) return
    const seen = new Set<string>()
    const tabs: Tab[] = []
    // At most one preview tab, as openFile keeps it: a second one is pinned rather than dropped.
    let preview = false
    for (const entry of entries) {
      const id = fileTabId(entry.path)
      if (seen.has(id)) continue
      seen.add(id)
      const isPreview: boolean = !entry.pinned && !preview
      preview ||= isPreview
      tabs.push({ id, kind: 'file', path: entry.path, preview: isPreview })
      const view = viewStateOf(entry.path)
      if (view !== undefined) this.viewStates.set(id, view)
    }
    const activeId =
      activePath !== null && seen.has(fileTabId(activePath)) ? fileTabId(activePath) : (tabs[0]?.id ?? null)
    this.store.set({ tabs, activeId, recent: activeId === null ? [] : [activeId] })
  }

  saveViewState(id: string, viewState: unknown): void {
    this.viewStates.set(id, viewState)
  }

  viewState(id: string): unknown {
    return this.viewStates.get(id)
  }
}

function activate(state: TabsState, id: string): TabsState {
  return { ...state, activeId: id, recent: [id, ...state.recent.filter((r) => r !== id)] }
}
