import { fail, ok } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import type { EventBus } from '../events'
import type { Database } from '../store'
import { createProjectRegistry, type ProjectRegistry } from './registry'

export interface ProjectsModule {
  readonly registry: ProjectRegistry
  readonly actions: ModuleActions<'app.info' | 'project.open' | 'project.list' | 'project.pick'>
  /** Opens a folder as a project (announcing it), as `project.open` does. */
  open: ProjectRegistry['open']
}

/** The project registry (`projects` table) and the app-level actions that open folders. */
export function createProjectsModule(deps: {
  db: Database
  dataDir: string
  events: EventBus
  shell: { shell: 'desktop' | 'browser'; appVersion: string; pickFolder?: (() => Promise<string | null>) | undefined }
}): ProjectsModule {
  const registry = createProjectRegistry(deps.db, deps.dataDir)
  async function open(path: string) {
    const opened = await registry.open(path)
    if (opened.kind === 'ok') {
      deps.events.emit(
        'project.opened',
        { project_id: opened.result.project_id },
        { project_id: opened.result.project_id, root: opened.result.root },
      )
    }
    return opened
  }
  const { shell } = deps
  return {
    registry,
    open,
    actions: {
      'app.info': async () =>
        ok({ shell: shell.shell, version: shell.appVersion, can_pick_folder: shell.pickFolder !== undefined }),
      'project.open': async ({ path }) => open(path),
      'project.list': async () => ok({ projects: registry.list() }),
      'project.pick': async () => {
        if (!shell.pickFolder) {
          return fail('UNSUPPORTED', 'This shell has no folder picker; open a folder by its path instead.', {
            reason: 'no-picker',
          })
        }
        const chosen = await shell.pickFolder()
        if (chosen === null) return ok({ kind: 'cancelled' as const })
        const opened = await open(chosen)
        return opened.kind === 'ok' ? ok({ kind: 'opened' as const, project: opened.result }) : opened
      },
    },
  }
}
