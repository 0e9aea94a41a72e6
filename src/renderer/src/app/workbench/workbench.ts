import type { ProjectSummary } from '../../../../shared/protocol'
import type { RequestClient } from '../../transport'
import { CommandRegistry, type CommandContext, type RunOutcome } from '../../ui/commands'
import { createStore } from '../../ui/store'
import type { LayoutHandle } from './Layout'
import { ProjectScope } from './project-scope'

/** What floats over the window: the palette (on commands or files) or the shortcuts help. */
export type Overlay =
  | { readonly kind: 'none' }
  | { readonly kind: 'palette'; readonly mode: 'commands' | 'files' }
  | { readonly kind: 'shortcuts' }

export interface ProjectsState {
  readonly list: readonly ProjectSummary[]
  /** The project on screen; the first listed until a person picks one. */
  readonly currentId: string | null
}

/**
 * The window outside React: which project is shown, what overlays it, the layout's panes, the
 * command registry, and one `ProjectScope` per project. Views read its stores with `useStore`;
 * commands, menus and keys call its methods — App only renders it.
 */
export class Workbench {
  readonly commands = new CommandRegistry()
  readonly overlay = createStore<Overlay>({ kind: 'none' })
  readonly projects = createStore<ProjectsState>({ list: [], currentId: null })
  /** The chat's current session, which Review shows. */
  readonly chatSession = createStore<string | null>(null)
  /** The mounted layout (the panel library's imperative handle); null while none is shown. */
  readonly layout: { current: LayoutHandle | null } = { current: null }
  private readonly scopes = new Map<string, ProjectScope>()

  /**
   * `client`: the connection each project's scope hands its slots (their requests go over it).
   * `restoredProjectId`: the project this window showed before a reload or restart, shown first
   * when the engine still lists it (else the first listed, as for a new window).
   */
  constructor(
    private readonly client: RequestClient,
    private readonly restoredProjectId: string | null = null,
  ) {}

  /** The project's scope, for the life of the window unless `closeProject` disposes it. */
  scopeFor(projectId: string): ProjectScope {
    let scope = this.scopes.get(projectId)
    if (!scope) {
      scope = new ProjectScope(projectId, this.client)
      this.scopes.set(projectId, scope)
    }
    return scope
  }

  /** The shown project's scope, or null before a project is open. */
  currentScope(): ProjectScope | null {
    const id = this.projects.get().currentId
    return id === null ? null : this.scopeFor(id)
  }

  closeProject(projectId: string): void {
    this.scopes.get(projectId)?.dispose()
    this.scopes.delete(projectId)
  }

  /**
   * A project the engine no longer lists is closed: its scope (tabs, the explorer's tree, Review's
   * choices…) is disposed rather than kept for a project that cannot come back to the screen.
   */
  setProjects(list: readonly ProjectSummary[]): void {
    const listed = new Set(list.map((project) => project.project_id))
    for (const projectId of [...this.scopes.keys()]) if (!listed.has(projectId)) this.closeProject(projectId)
    const restored =
      this.restoredProjectId !== null && listed.has(this.restoredProjectId) ? this.restoredProjectId : null
    this.projects.set((state) => ({ list, currentId: state.currentId ?? restored ?? list[0]?.project_id ?? null }))
  }

  selectProject(projectId: string): void {
    if (this.projects.get().currentId === projectId) return
    this.projects.set((state) => ({ ...state, currentId: projectId }))
    this.chatSession.set(null)
  }

  openPalette(mode: 'commands' | 'files'): void {
    this.overlay.set({ kind: 'palette', mode })
  }

  showShortcuts(): void {
    this.overlay.set({ kind: 'shortcuts' })
  }

  closeOverlay(): void {
    this.overlay.set({ kind: 'none' })
  }

  openFile(path: string, pinned = true): void {
    this.currentScope()?.tabs.openFile(path, { pinned })
  }

  /** What every command runs against: the shown project and the part of the window features drive. */
  context(): CommandContext {
    return {
      projectId: this.projects.get().currentId,
      workbench: {
        showPane: (pane) => this.layout.current?.show(pane),
        openReviewTab: () => this.currentScope()?.tabs.openReview(),
      },
    }
  }

  run(id: string): RunOutcome {
    return this.commands.run(id, this.context())
  }
}
