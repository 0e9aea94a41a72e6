import type { EventFrame, ResponseEnvelope } from '../../shared/protocol'

/**
 * Which projects one client (a WebSocket, a window) has opened, learned from the answers it got:
 * spec 02 sends an event only to clients that opened its project, so one window never reloads its
 * explorer or Review because another project changed.
 */
export class ProjectSubscriptions {
  private readonly projects = new Set<string>()

  /**
   * Notes the project a request is owned by, before it runs: the events it causes (a session's
   * `session.updated`, a write's `workspace.changed`) reach the client that asked.
   */
  noteRequest(raw: unknown): void {
    const owner = (raw as { owner?: { project_id?: unknown } } | null)?.owner
    if (typeof owner?.project_id === 'string' && owner.project_id.length <= 200) this.projects.add(owner.project_id)
  }

  /** Notes the project of an answered request (an opened or picked project, or any project-owned request). */
  noteResponse(response: ResponseEnvelope): void {
    if (response.status !== 'ok') return
    if (response.owner.project_id) this.projects.add(response.owner.project_id)
    const result = response.result as { project_id?: unknown; kind?: unknown; project?: { project_id?: unknown } }
    if (response.action === 'project.open' && typeof result.project_id === 'string')
      this.projects.add(result.project_id)
    if (response.action === 'project.pick' && typeof result.project?.project_id === 'string') {
      this.projects.add(result.project.project_id)
    }
  }

  wants(frame: EventFrame): boolean {
    const project = frame.owner.project_id
    return project !== undefined && this.projects.has(project)
  }
}
