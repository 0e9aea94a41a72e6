import { randomUUID } from 'node:crypto'
import type { ActionName, Owner, PayloadOf, ProjectSummary, ResultOf } from '../../shared/protocol'
import type { Core } from '../core'

/**
 * The desktop shell's own requests to the engine (the menu's recent folders, opening a launched
 * folder, stopping turns on quit). They go through the same `handle()` as a window's requests, so
 * the engine validates and answers them the same way.
 */
type Ask = Pick<Core, 'handle'>

type Answer<A extends ActionName> = { kind: 'ok'; result: ResultOf<A> } | { kind: 'error'; message: string }

async function ask<A extends ActionName>(
  core: Ask,
  action: A,
  payload: PayloadOf<A>,
  owner: Owner = {},
): Promise<Answer<A>> {
  const response = await core.handle({ request_id: randomUUID(), action, owner, payload })
  if (response.status === 'error') return { kind: 'error', message: response.error.message }
  return { kind: 'ok', result: response.result as ResultOf<A> }
}

/** Most recently opened first. */
export async function recentProjects(core: Ask): Promise<ProjectSummary[]> {
  const answer = await ask(core, 'project.list', {})
  return answer.kind === 'ok' ? answer.result.projects : []
}

export async function openProject(
  core: Ask,
  path: string,
): Promise<{ kind: 'ok'; project: ProjectSummary } | { kind: 'error'; message: string }> {
  const answer = await ask(core, 'project.open', { path })
  return answer.kind === 'ok' ? { kind: 'ok', project: answer.result } : answer
}

export interface RunningTurn {
  readonly project_id: string
  readonly session_id: string
}

/** Every session with a turn running, across all projects. */
export async function runningTurns(core: Ask): Promise<RunningTurn[]> {
  const running: RunningTurn[] = []
  for (const project of await recentProjects(core)) {
    const answer = await ask(core, 'session.list', {}, { project_id: project.project_id })
    if (answer.kind !== 'ok') continue
    for (const session of answer.result.sessions) {
      if (session.running_turn_id !== null)
        running.push({ project_id: project.project_id, session_id: session.session_id })
    }
  }
  return running
}

/** Stops a running turn; answers once it has settled (its state recorded as aborted). */
export async function stopTurn(core: Ask, turn: RunningTurn): Promise<void> {
  await ask(core, 'session.abort', { session_id: turn.session_id }, { project_id: turn.project_id })
}
