import type { AgentOptions, Core, CoreOptions } from '../../src/main/core'
import type { EventFrame, TurnPart } from '../../src/shared/protocol'
import { openProject, startCore } from './core'
import type { FakeLlmServer } from './fake-llm'

export type TranscriptNode = {
  node_id: string
  kind: string
  status: string
  parts: TurnPart[]
  summary?: { files: number; added: number | null; removed: number | null; first_files: string[] }
}

/** Collects the core's events so a test can wait for one (with a deadline that fails loudly). */
export function eventLog(core: Core) {
  const frames: EventFrame[] = []
  const waiters = new Set<() => void>()
  core.onEvent((frame) => {
    frames.push(frame)
    for (const wake of [...waiters]) wake()
  })
  function waitFor(predicate: (frame: EventFrame) => boolean, timeoutMs = 10_000): Promise<EventFrame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = frames.find(predicate)
        if (found) {
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`No matching event within ${timeoutMs} ms; saw ${frames.map((f) => f.event).join(', ')}`))
      }, timeoutMs)
      waiters.add(check)
      check()
    })
  }
  return { frames, waitFor }
}

/** A core with a provider pointed at a fake server, a project, and a session in the given mode. */
export async function agentFixture(
  root: string,
  fake: FakeLlmServer,
  options: {
    kind?: 'openai-compatible' | 'anthropic'
    mode?: 'ask' | 'accept-edits' | 'auto'
    agent?: AgentOptions
    dataDir?: string
    documentLimits?: CoreOptions['documentLimits']
    office?: CoreOptions['office']
  } = {},
) {
  const core = startCore({
    ...(options.office ? { office: options.office } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.documentLimits ? { documentLimits: options.documentLimits } : {}),
    // Counts inside documents are asserted exactly: a loaded CI machine must not turn them into null.
    reviewDocumentCountsBudgetMs: options.documentLimits?.timeMs ?? 60_000,
    agent: {
      cliProvider: { kind: options.kind ?? 'openai-compatible', base_url: fake.url, model: 'fake-model' },
      env: { RETRACE_API_KEY: 'test-key' },
      loop: { maxRetries: 0, stallTimeoutMs: 5_000 },
      ...options.agent,
    },
  })
  const events = eventLog(core)
  const project = await openProject(core, root)
  const created = await project.call('session.create', { title: 'Test', permission_mode: options.mode ?? 'auto' })
  if (created.status !== 'ok') throw new Error(JSON.stringify(created.error))
  const sessionId = (created.result as { session_id: string }).session_id
  const session = (action: string, payload: Record<string, unknown> = {}) =>
    core.handle({
      request_id: crypto.randomUUID(),
      action,
      owner: { project_id: project.projectId, session_id: sessionId },
      payload: action.startsWith('session.') ? { session_id: sessionId, ...payload } : payload,
      ...(action === 'history.apply' ? { idempotency_key: crypto.randomUUID() } : {}),
    })

  async function prompt(text: string): Promise<string> {
    const response = await session('session.prompt', { text })
    if (response.status !== 'ok') throw new Error(`prompt failed: ${JSON.stringify(response.error)}`)
    return (response.result as { turn_id: string }).turn_id
  }
  async function finished(turnId: string, timeoutMs = 10_000) {
    const frame = await events.waitFor(
      (f) => f.event === 'turn.finished' && (f.data as { turn_id: string }).turn_id === turnId,
      timeoutMs,
    )
    return frame.data as { status: string; summary: { files: number; added: number; removed: number } | null }
  }
  async function turn(turnId: string): Promise<TranscriptNode> {
    const response = await session('session.transcript')
    if (response.status !== 'ok') throw new Error(JSON.stringify(response.error))
    const nodes = (response.result as { nodes: TranscriptNode[] }).nodes
    const node = nodes.find((n) => n.node_id === turnId)
    if (!node) throw new Error(`turn ${turnId} not in transcript`)
    return node
  }
  /** Resolves with the tool part once its approval card is waiting. */
  async function approvalFor(turnId: string, callId: string) {
    const frame = await events.waitFor((f) => {
      if (f.event !== 'turn.part') return false
      const data = f.data as { turn_id: string; part: TurnPart }
      return (
        data.turn_id === turnId &&
        data.part.type === 'tool' &&
        data.part.id === callId &&
        data.part.approval?.status === 'waiting'
      )
    })
    return (frame.data as { part: Extract<TurnPart, { type: 'tool' }> }).part
  }
  return { core, events, project, sessionId, session, prompt, finished, turn, approvalFor }
}

export const toolParts = (node: TranscriptNode) =>
  node.parts.filter((p): p is Extract<TurnPart, { type: 'tool' }> => p.type === 'tool')
export const textOf = (node: TranscriptNode) =>
  node.parts
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('')
export const noticesOf = (node: TranscriptNode) =>
  node.parts.filter((p): p is Extract<TurnPart, { type: 'notice' }> => p.type === 'notice')

/** The result of an ok response; a failing response fails the test with its error. */
export function resultOf(response: { status: 'ok'; result: unknown } | { status: 'error'; error: unknown }): unknown {
  if (response.status !== 'ok') throw new Error(`request failed: ${JSON.stringify(response.error)}`)
  return response.result
}
