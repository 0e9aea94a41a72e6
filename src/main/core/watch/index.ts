import type { Disposable } from '../../../shared/disposable'
import type { ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import type { EventBus } from '../events'
import { gitDecorations } from './git-decorations'

export { gitDecorations } from './git-decorations'
import { watchProject, type ChangeBatch, type WatchLimits } from './project-watcher'

export { watchProject, DEFAULT_WATCH_LIMITS, type ChangeBatch, type WatchLimits } from './project-watcher'

/** At most this many projects are watched at once; the least recently used one stops first. */
export const MAX_WATCHED_PROJECTS = 4

/**
 * The engine's file watchers, one per project in use (opened or recently requested), bounded in
 * number. Each reports change batches for its project; disposing stops them all.
 */
export function createWatchService(options: {
  dataDir: string
  onChange: (projectId: string, batch: ChangeBatch) => void
  onError: (projectId: string, error: unknown) => void
  limits?: Partial<WatchLimits>
  maxProjects?: number
}): Disposable & { ensure(project: { project_id: string; root: string }): void; readonly watched: () => string[] } {
  const watchers = new Map<string, Disposable>()
  const max = options.maxProjects ?? MAX_WATCHED_PROJECTS
  let disposed = false
  return {
    ensure(project) {
      if (disposed) return
      const existing = watchers.get(project.project_id)
      if (existing) {
        // Most recently used last: Map keeps insertion order.
        watchers.delete(project.project_id)
        watchers.set(project.project_id, existing)
        return
      }
      while (watchers.size >= max) {
        const [oldest, watcher] = watchers.entries().next().value as [string, Disposable]
        watcher.dispose()
        watchers.delete(oldest)
      }
      watchers.set(
        project.project_id,
        watchProject({
          root: project.root,
          dataDir: options.dataDir,
          ...(options.limits ? { limits: options.limits } : {}),
          onChange: (batch) => options.onChange(project.project_id, batch),
          onError: (error) => options.onError(project.project_id, error),
        }),
      )
    },
    watched: () => [...watchers.keys()],
    dispose() {
      disposed = true
      for (const watcher of watchers.values()) watcher.dispose()
      watchers.clear()
    },
  }
}

/** The watchers and git decorations as a module: `git.status`, and `files.changed` events. */
export function createWatchModule(deps: {
  dataDir: string
  events: EventBus
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
}): { readonly actions: ModuleActions<'git.status'>; ensure(project: ProjectSummary): void; dispose(): void } {
  // One watcher per project a window shows (bounded); a UI hint, never journaled.
  const watchers = createWatchService({
    dataDir: deps.dataDir,
    onChange: (projectId, batch) => deps.events.emit('files.changed', { project_id: projectId }, batch),
    onError: (projectId, error) =>
      deps.log('warn', 'File watcher error', { project_id: projectId, error: String(error) }),
  })
  return {
    actions: { 'git.status': async (_payload, { project }) => gitDecorations(project.root, project.is_git) },
    ensure: (project) => watchers.ensure(project),
    dispose: () => watchers.dispose(),
  }
}
