import { APICallError, streamText, tool as sdkTool, type ToolSet } from 'ai'
import { PATCH_FILES_KEPT, type NoticePart, type ToolPart, type TurnPart } from '../../../shared/protocol'
import type { Capture, StepAttribution } from '../snapshot'
import type { LoopDependencies } from './loop-types'
import { turnMessages } from './messages'
import { runTool } from './run-tool'
import { boundOutput, type ToolResult } from './tools/define-tool'

export {
  DEFAULT_LOOP_SETTINGS,
  type ApprovalDecision,
  type CommandWindows,
  type LoopDependencies,
  type LoopSettings,
  type StepSnapshots,
} from './loop-types'

// The SDK's console warnings (e.g. an unknown model id) would go to stderr on every call; what
// matters to the person is shown in the turn instead.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

export type TurnEnd = 'complete' | 'aborted' | 'error'

const REPEAT_LIMIT = 3
/** A sub-agent (`task`) stops after this many steps, or the parent's limit if lower. */
const SUB_AGENT_STEP_LIMIT = 30

/**
 * Spec 05 "Loop": one model call per step. The SDK gets the tools without `execute`, so every call
 * comes back here: approval, the journal, abort and persistence are the engine's, not the SDK's.
 */
export async function runLoop(deps: LoopDependencies, parts: TurnPart[]): Promise<TurnEnd> {
  const push = (part: TurnPart): number => {
    parts.push(part)
    deps.update(parts.length - 1, part)
    return parts.length - 1
  }
  const set = (index: number, part: TurnPart, streaming = false) => {
    parts[index] = part
    deps.update(index, part, streaming)
  }
  const notice = (reason: NoticePart['reason'], message: string, retryable: boolean, code?: string) =>
    push({ type: 'notice', id: `notice_${parts.length}`, reason, message, retryable, ...(code ? { code } : {}) })

  const toolSet: ToolSet = {}
  for (const definition of deps.tools) {
    toolSet[definition.name] = sdkTool({ description: definition.description, inputSchema: definition.input })
  }
  const byName = new Map(deps.tools.map((t) => [t.name, t]))
  const recentCalls: string[] = []
  // Spec 06: a snapshot at turn start; each step's finishing snapshot is the next one's start.
  let nextStart: Promise<Capture> | null = deps.snapshots?.capture() ?? null
  let current: { step: number; start: Promise<Capture> | null } | null = null

  // Issue 23: steps whose commands opened a window, and whether a background command runs (every
  // later step of the turn is then a command step from its start).
  const windowsOpened = new Map<number, Promise<void>>()
  let backgroundStarted = false
  const stepStarts = new Map<number, { sequence: number; atMs: number }>()
  const commandStarting =
    deps.commandStarting ??
    (async () => {
      const windows = deps.snapshots?.windows
      if (!current || !deps.snapshots || !windows) return
      const { step } = current
      let opened = windowsOpened.get(step)
      if (!opened) {
        const sequence = windows.sequence()
        opened = deps.snapshots.capture().then((from) => windows.open(step, from, sequence, Date.now()))
        windowsOpened.set(step, opened)
      }
      await opened
    })
  const loopDeps: LoopDependencies = { ...deps, commandStarting }

  /** The step's closing snapshot, stored in its step-finish part, and its patch part when files changed. */
  const finishStep = async () => {
    if (!current || !deps.snapshots) return
    const { step, start } = current
    current = null
    const end = deps.snapshots.capture()
    nextStart = end
    const [before, after] = await Promise.all([start, end])
    const endedAtMs = Date.now()
    const finishIndex = parts.findLastIndex((p) => p.type === 'step-finish' && p.step === step)
    const finish = parts[finishIndex]
    if (finish?.type === 'step-finish') set(finishIndex, withCapture(finish, after))
    const windows = deps.snapshots.windows
    await windowsOpened.get(step)
    if (windows && backgroundStarted && !windowsOpened.has(step) && before) {
      // A background command ran through the whole step: its window is the step.
      const started = stepStarts.get(step)
      windows.open(step, before, started?.sequence ?? 0, started?.atMs ?? 0)
      windowsOpened.set(step, Promise.resolve())
    }
    const window = windows && windowsOpened.has(step) ? windows.close(step, after, endedAtMs) : null
    if (before?.kind !== 'snapshot' || after.kind !== 'snapshot') return
    const changed = await deps.snapshots.changedPaths(before.hash, after.hash)
    if (changed.kind === 'error') return
    // Only what this step newly left out (a large file that was already there is not the step's).
    const known = new Set(before.excluded.map((e) => `${e.reason}\0${e.path}\0${e.size ?? ''}`))
    const excluded = after.excluded.filter((e) => !known.has(`${e.reason}\0${e.path}\0${e.size ?? ''}`))
    if (changed.result.length === 0 && excluded.length === 0) return
    let attribution: StepAttribution | null = null
    if (window && windows && changed.result.length > 0) {
      attribution = await windows.attribute({
        stepStart: before.hash,
        window,
        after: after.hash,
        endedAtMs,
        files: changed.result,
      })
    }
    const held = attribution?.held ?? []
    push({
      type: 'patch',
      id: `step_${step}_patch`,
      step,
      hash: before.hash,
      after: after.hash,
      files: changed.result.slice(0, PATCH_FILES_KEPT),
      files_total: changed.result.length,
      ...(excluded.length > 0 ? { excluded: excluded.slice(0, 100) } : {}),
      ...(held.length > PATCH_FILES_KEPT ? { held_all: held[0]?.reason ?? 'person' } : held.length > 0 ? { held } : {}),
      ...(attribution && attribution.nestedRepositories.length > 0
        ? { nested_repositories: attribution.nestedRepositories.slice(0, 100) }
        : {}),
    })
  }
  /**
   * Spec 05 `task`: a sub-agent loop for one call. It shares the model, the workspace, the
   * permission mode and the approvals; its tool calls are shown in this turn (ids prefixed with
   * the task call's, `task_call_id` set) and their changes are this turn's — so Review, Undo and
   * Rewind of the turn include them. Its conversation is its own; its last text is the output.
   */
  const spawnFor =
    (taskCallId: string) =>
    async (task: { description: string; prompt: string }): Promise<ToolResult> => {
      const childParts: TurnPart[] = []
      const shownAt = new Map<number, number>()
      const idOf = (callId: string) => `${taskCallId}/${callId}`
      const end = await runLoop(
        {
          model: deps.model,
          system: `${deps.system}\n\n${subAgentNote(task.description)}`,
          history: [{ role: 'user', content: task.prompt }],
          tools: deps.tools.filter((definition) => definition.name !== 'task'),
          settings: { ...deps.settings, stepLimit: Math.min(deps.settings.stepLimit, SUB_AGENT_STEP_LIMIT) },
          signal: deps.signal,
          permissionMode: () => deps.permissionMode(),
          isCommandAllowed: (command) => deps.isCommandAllowed(command),
          allowCommand: (command) => deps.allowCommand(command),
          waitForApproval: (callId) => deps.waitForApproval(idOf(callId)),
          toolContext: (callId, approved) => deps.toolContext(idOf(callId), approved),
          planning: () => deps.planning(),
          commandStarting,
          update(index, part) {
            if (part.type !== 'tool') return
            const shown: ToolPart = { ...part, id: idOf(part.id), task_call_id: taskCallId }
            const at = shownAt.get(index)
            if (at === undefined) shownAt.set(index, push(shown))
            else set(at, shown)
          },
        },
        childParts,
      )
      const receipt_ids = childParts.flatMap((part) => (part.type === 'tool' ? part.receipt_ids : []))
      const notice = childParts.findLast((part): part is NoticePart => part.type === 'notice')
      if (end === 'aborted')
        return { kind: 'error', code: 'ABORTED', message: 'The sub-agent was stopped.', receipt_ids }
      if (end === 'error') {
        return {
          kind: 'error',
          code: 'TASK_FAILED',
          message: `The sub-agent stopped: ${notice?.message ?? 'unknown error'}`,
          receipt_ids,
        }
      }
      const lastStep = childParts.findLastIndex((part) => part.type === 'step-start')
      const report = childParts
        .slice(Math.max(0, lastStep))
        .flatMap((part) => (part.type === 'text' && part.text.trim() !== '' ? [part.text.trim()] : []))
        .join('\n\n')
      const output = [report || 'The sub-agent finished without a report.', notice ? `(${notice.message})` : '']
        .filter((line) => line !== '')
        .join('\n')
      return { kind: 'ok', output: boundOutput(output), receipt_ids }
    }

  const ended = async (end: TurnEnd): Promise<TurnEnd> => {
    await finishStep()
    return end
  }

  for (let step = 0; ; step++) {
    if (deps.signal.aborted) return abortedEnd()
    if (step >= deps.settings.stepLimit) {
      notice('step-limit', `Stopped after ${deps.settings.stepLimit} steps. Send a message to continue.`, true)
      return 'complete'
    }
    const startIndex = push({ type: 'step-start', id: `step_${step}_start`, step, snapshot: null })
    const windowsOfTurn = deps.snapshots?.windows
    if (windowsOfTurn) stepStarts.set(step, { sequence: windowsOfTurn.sequence(), atMs: Date.now() })
    const start = nextStart ?? deps.snapshots?.capture() ?? null
    nextStart = null
    current = { step, start }
    // Taken while the model streams; awaited before any tool of the step runs.
    void start?.then((capture) => {
      const part = parts[startIndex]
      if (part?.type === 'step-start') set(startIndex, withCapture(part, capture))
    })
    const outcome = await streamStep(deps, toolSet, parts, step, push, set)
    if (outcome.kind === 'aborted') return abortedEnd()
    if (outcome.kind === 'stalled') {
      notice(
        'stalled',
        `The model sent nothing for ${Math.round(deps.settings.stallTimeoutMs / 1000)} s; stopped.`,
        true,
      )
      return ended('error')
    }
    if (outcome.kind === 'error') {
      notice('provider-error', outcome.message, outcome.retryable, outcome.code)
      return ended('error')
    }
    const calls = outcome.toolIndexes
    if (calls.length === 0) return ended('complete')

    // Three identical consecutive calls: the third is not run; the person decides how to go on.
    let repeated = false
    for (const index of calls) {
      const part = parts[index] as ToolPart
      recentCalls.push(`${part.tool}\u0000${JSON.stringify(part.input)}`)
      const last = recentCalls.slice(-REPEAT_LIMIT)
      if (last.length === REPEAT_LIMIT && last.every((c) => c === last[0])) repeated = true
    }
    if (repeated) {
      for (const index of calls) {
        const part = parts[index] as ToolPart
        set(index, {
          ...part,
          state: 'error',
          error: { code: 'REPEATED', message: 'Not run: the same call three times in a row.' },
        })
      }
      notice(
        'repeated-calls',
        'The agent made the same tool call three times in a row and was paused. Tell it how to go on, or Retry.',
        true,
      )
      return ended('complete')
    }

    await start
    await Promise.all(calls.map((index) => runTool(loopDeps, byName, parts, index, set, spawnFor)))
    backgroundStarted ||= calls.some((index) => {
      const part = parts[index]
      return (
        part?.type === 'tool' &&
        part.tool === 'bash' &&
        part.started_at_ms !== undefined &&
        (part.input as { run_in_background?: unknown } | null)?.run_in_background === true
      )
    })
    if (deps.signal.aborted) return abortedEnd()
    await finishStep()
  }

  async function abortedEnd(): Promise<TurnEnd> {
    // Every call that had not finished is recorded as unknown: never a fabricated success.
    parts.forEach((part, index) => {
      if (part.type === 'tool' && (part.state === 'pending' || part.state === 'running')) {
        // A call that never started is known to have done nothing; one that was running is not.
        const message =
          part.state === 'running' ? 'aborted — result unknown' : 'stopped before it ran — nothing was done'
        set(index, {
          ...part,
          state: 'error',
          error: { code: 'ABORTED', message },
          ended_at_ms: Date.now(),
          ...(part.approval?.status === 'waiting'
            ? { approval: { ...part.approval, status: 'rejected' as const } }
            : {}),
        })
      }
    })
    // An interrupted step still records what its commands changed (spec 06).
    await finishStep()
    notice('aborted', 'Stopped.', true)
    return 'aborted'
  }
}

/** What a sub-agent is told besides the parent's system prompt. */
function subAgentNote(description: string): string {
  return [
    `You are a sub-agent working on one task for another agent: "${description}".`,
    'Do the task with your tools, then answer with a short report of what you did and found: that',
    'report is all the other agent sees. You cannot ask the user questions.',
  ].join(' ')
}

/** A step part with its snapshot, or with the reason there is none. */
function withCapture<P extends Extract<TurnPart, { type: 'step-start' | 'step-finish' }>>(
  part: P,
  capture: Capture,
): P {
  if (capture.kind === 'snapshot') return { ...part, snapshot: capture.hash }
  return { ...part, snapshot: null, snapshot_note: { reason: capture.reason, message: capture.message } }
}

type StepOutcome =
  | { kind: 'ok'; toolIndexes: number[] }
  | { kind: 'aborted' }
  | { kind: 'stalled' }
  | { kind: 'error'; message: string; retryable: boolean; code?: string }

async function streamStep(
  deps: LoopDependencies,
  toolSet: ToolSet,
  parts: TurnPart[],
  step: number,
  push: (part: TurnPart) => number,
  set: (index: number, part: TurnPart, streaming?: boolean) => void,
): Promise<StepOutcome> {
  const stepAbort = new AbortController()
  const onAbort = () => stepAbort.abort(new Error('aborted'))
  deps.signal.addEventListener('abort', onAbort, { once: true })
  let stalled = false
  let stallTimer: NodeJS.Timeout | undefined
  const armStall = () => {
    clearTimeout(stallTimer)
    stallTimer = setTimeout(() => {
      stalled = true
      stepAbort.abort(new Error('stalled'))
    }, deps.settings.stallTimeoutMs)
  }
  const messages = [...deps.history, ...turnMessages(parts)]
  const streams = new Map<string, number>()
  const toolIndexes: number[] = []
  let failure: unknown
  let finish: { reason: string; tokens: StepTokens } | undefined
  try {
    armStall()
    const result = streamText({
      model: deps.model,
      system: deps.system,
      messages,
      tools: toolSet,
      maxRetries: deps.settings.maxRetries,
      abortSignal: stepAbort.signal,
      // Errors arrive as stream parts (or a throw on a dropped connection) and are handled below.
      onError: () => {},
    })
    for await (const chunk of result.fullStream) {
      armStall()
      switch (chunk.type) {
        case 'text-start':
        case 'reasoning-start': {
          const type = chunk.type === 'text-start' ? 'text' : 'reasoning'
          streams.set(`${type}:${chunk.id}`, push({ type, id: `${type}_${step}_${chunk.id}`, text: '' }))
          break
        }
        case 'text-delta':
        case 'reasoning-delta': {
          const type = chunk.type === 'text-delta' ? 'text' : 'reasoning'
          let index = streams.get(`${type}:${chunk.id}`)
          if (index === undefined) {
            index = push({ type, id: `${type}_${step}_${chunk.id}`, text: '' })
            streams.set(`${type}:${chunk.id}`, index)
          }
          const part = parts[index] as Extract<TurnPart, { type: 'text' | 'reasoning' }>
          set(index, { ...part, text: part.text + chunk.text }, true)
          break
        }
        case 'text-end':
        case 'reasoning-end': {
          const index = streams.get(`${chunk.type === 'text-end' ? 'text' : 'reasoning'}:${chunk.id}`)
          if (index !== undefined) set(index, parts[index] as TurnPart)
          break
        }
        case 'tool-call': {
          toolIndexes.push(
            push({
              type: 'tool',
              id: chunk.toolCallId,
              tool: chunk.toolName,
              state: 'pending',
              input: chunk.input,
              receipt_ids: [],
            }),
          )
          break
        }
        case 'finish-step':
          finish = {
            reason: chunk.finishReason,
            tokens: {
              input: chunk.usage.inputTokens ?? null,
              output: chunk.usage.outputTokens ?? null,
              reasoning: chunk.usage.outputTokenDetails?.reasoningTokens ?? null,
              cache_read: chunk.usage.inputTokenDetails?.cacheReadTokens ?? null,
            },
          }
          break
        case 'error':
          failure = chunk.error
          break
        default:
          break
      }
    }
  } catch (error) {
    failure = error
  } finally {
    clearTimeout(stallTimer)
    deps.signal.removeEventListener('abort', onAbort)
  }
  // Text that was streaming when the step ended is persisted whole.
  for (const index of streams.values()) set(index, parts[index] as TurnPart)
  if (deps.signal.aborted) return { kind: 'aborted' }
  if (stalled) return { kind: 'stalled' }
  push({
    type: 'step-finish',
    id: `step_${step}_finish`,
    step,
    snapshot: null,
    finish_reason: failure !== undefined ? 'error' : (finish?.reason ?? 'unknown'),
    tokens: finish?.tokens ?? { input: null, output: null, reasoning: null, cache_read: null },
    cost: null,
  })
  if (failure !== undefined) return { kind: 'error', ...describeFailure(failure) }
  return { kind: 'ok', toolIndexes }
}

interface StepTokens {
  input: number | null
  output: number | null
  reasoning: number | null
  cache_read: number | null
}

function describeFailure(error: unknown): { message: string; retryable: boolean; code?: string } {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const hint =
      status === 401 || status === 403
        ? ' Check the API key in Settings.'
        : status === 404
          ? ' Check the base URL and the model name in Settings.'
          : ''
    return {
      message: `The model provider answered ${status ? `HTTP ${status}` : 'with an error'}: ${error.message}.${hint}`,
      retryable: error.isRetryable,
      ...(status ? { code: String(status) } : {}),
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { message: `The model call failed: ${message}`, retryable: true }
}
