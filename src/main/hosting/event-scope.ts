import type { EventFrame, ResponseEnvelope } from '../../shared/protocol'

/**
 * Which projects one client (a WebSocket, a window) has opened, learned from the answers it got:
 * spec 02 sends an event only to clients that opened its project, so one window never reloads its
 * explorer or Review because another project changed.
 */
export class ProjectSubscriptions {
  private readonly projects = new Set<string>()

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

  /**
   * Notes the project a request addresses, before it runs: events that request itself causes (a
   * `session.updated` while creating a session) would otherwise race its answer and be lost.
   */
  noteRequest(raw: unknown): void {
    const owner = typeof raw === 'object' && raw !== null ? (raw as { owner?: unknown }).owner : undefined
    const project =
      typeof owner === 'object' && owner !== null ? (owner as { project_id?: unknown }).project_id : undefined
    if (typeof project === 'string' && project.length > 0 && project.length <= 200) this.projects.add(project)
  }

  wants(frame: EventFrame): boolean {
    const project = frame.owner.project_id
    return project !== undefined && this.projects.has(project)
  }
}
