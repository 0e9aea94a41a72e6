import type { EventFrame } from '../../../shared/protocol'
import type { RequestClient } from '../transport'

/**
 * Subscribes to the events of one project. Frames name their project in `owner.project_id`; a
 * frame without one (older engines) is passed on, as before.
 */
export function onProjectEvent(
  client: RequestClient,
  projectId: string,
  listener: (frame: EventFrame) => void,
): () => void {
  return client.onEvent((frame) => {
    if (frame.owner.project_id !== undefined && frame.owner.project_id !== projectId) return
    listener(frame)
  })
}

/** Paths named by `files.changed` / `workspace.changed`, or `'all'` when the event cannot say. */
export function changedPaths(frame: EventFrame): readonly string[] | 'all' | null {
  if (frame.event !== 'files.changed' && frame.event !== 'workspace.changed') return null
  const data = frame.data as { paths?: unknown; truncated?: unknown }
  if (data.truncated === true || !Array.isArray(data.paths) || data.paths.length === 0) return 'all'
  return data.paths.filter((p): p is string => typeof p === 'string')
}
