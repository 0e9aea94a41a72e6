import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Core } from '../../src/main/core'
import { planApplyPatch } from '../../src/main/core/journal'
import type { ResponseEnvelope } from '../../src/shared/protocol'
import { openProject } from './core'

export type Ok<T = Record<string, unknown>> = { status: 'ok'; result: T }

/** The result of an ok response; anything else fails the test with the error. */
export function okResult<T = Record<string, unknown>>(response: ResponseEnvelope): T {
  if (response.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(response.error)}`)
  return response.result as T
}

export interface SessionView {
  session_id: string
  active_branch_id: string
  root_node_id: string
  alignment: { state: string; files_node_id: string; head_node_id: string; checkpoint_id: string | null }
}
export interface BranchView {
  branch_id: string
  parent_branch_id: string | null
  head_node_id: string
  head_version: number
  writer_epoch: number
  archived: boolean
  fork_node_id: string | null
  last_prompt: string | null
}

/**
 * A session on a project driven through the protocol, with turns made by the in-process turn API
 * (each turn applies a patch through the journal, as the agent's tools do).
 */
export async function historyHarness(core: Core, root: string) {
  const project = await openProject(core, root)
  const sessionId = okResult<{ session_id: string }>(await project.call('session.create', {})).session_id
  const owner = { project_id: project.projectId, session_id: sessionId }
  const call = (action: string, payload: unknown, key?: string) =>
    core.handle({ request_id: randomUUID(), action, owner, ...(key ? { idempotency_key: key } : {}), payload })
  const session = (action: string, payload: Record<string, unknown> = {}) =>
    call(action, { session_id: sessionId, ...payload })

  /** One finished turn that applies `patch` (or changes nothing); returns its turn id. */
  async function turn(patch: string | null, prompt = 'do it'): Promise<string> {
    const begun = await core.turns.begin(project.projectId, sessionId, prompt)
    if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun))
    if (patch !== null) {
      const applied = await core.turns.mutate(project.projectId, begun.result, (context) =>
        planApplyPatch(context, patch),
      )
      if (applied.kind !== 'ok') throw new Error(JSON.stringify(applied))
    }
    await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
    return begun.result.turn_id
  }
  const plan = (payload: Record<string, unknown>) => call('history.plan', payload)
  const apply = (planHash: string, key = randomUUID()) => call('history.apply', { plan_hash: planHash }, key)
  async function rewind(payload: Record<string, unknown>) {
    const planned = okResult<{ plan_hash: string; status: string }>(await plan({ operation: 'rewind', ...payload }))
    if (planned.status !== 'ready') throw new Error(`plan is ${planned.status}: ${JSON.stringify(planned)}`)
    return okResult<{ intent_id: string; status: string; branch_id: string; prompt_text: string | null }>(
      await apply(planned.plan_hash),
    )
  }
  async function transcript() {
    return okResult<{
      session: SessionView
      branches: BranchView[]
      nodes: Array<{ node_id: string; parent_node_id: string | null; kind: string }>
    }>(await session('session.transcript'))
  }
  /** The preview of "Restore branch code" the person confirms (session.align writes only a previewed plan). */
  async function alignPlan(): Promise<string> {
    return okResult<{ plan_hash: string }>(await plan({ operation: 'align' })).plan_hash
  }
  const read = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : null)
  return { project, sessionId, owner, call, session, turn, plan, apply, rewind, transcript, read, alignPlan }
}

export const edit = (path: string, from: string, to: string) =>
  `*** Begin Patch\n*** Update File: ${path}\n-${from}\n+${to}\n*** End Patch`
export const add = (path: string, content: string) =>
  `*** Begin Patch\n*** Add File: ${path}\n+${content}\n*** End Patch`
