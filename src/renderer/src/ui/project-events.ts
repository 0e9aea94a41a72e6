import type { KnownEventFrame } from '../../../shared/protocol'
import type { RequestClient } from '../transport'

/**
 * Subscribes to the events of one project. Frames name their project in `owner.project_id`; a
 * frame without one (older engines) is passed on, as before. Prefer `client.on(name, …,
 * { projectId })` for a single event; this is for listeners that react to several.
 */
export function onProjectEvent(
  client: RequestClient,
  projectId: string,
  listener: (frame: KnownEventFrame) => void,
): () => void {
  return client.onEvent(listener, { projectId })
}

/** Paths named by `files.changed` / `workspace.changed`, or `'all'` when the event cannot say. */
export function changedPaths(frame: KnownEventFrame): readonly string[] | 'all' | null {
  switch (frame.event) {
    case 'files.changed':
      return frame.data.truncated || frame.data.paths.length === 0 ? 'all' : frame.data.paths
    case 'workspace.changed':
      return frame.data.paths.length === 0 ? 'all' : frame.data.paths
    default:
      return null
  }
}
