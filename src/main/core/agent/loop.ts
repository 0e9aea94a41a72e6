import { APICallError, streamText, tool as sdkTool, type LanguageModel, type ModelMessage, type ToolSet } from 'ai'
import {
  PATCH_FILES_KEPT,
  type ApprovalRequest,
  type NoticePart,
  type Outcome,
  type PermissionMode,
  type ToolPart,
  type TurnPart,
} from '../../../shared/protocol'
import type { MutatorContext } from '../journal'
import type { Capture, CommandWindow, StepAttribution } from '../snapshot'
import { storageFailure, type Digest } from '../store'
import { describeChanges } from './approvals'
import { turnMessages } from './messages'
import { boundOutput, type ToolContext, type ToolDefinition, type ToolResult } from './tools/define-tool'
import { DEFAULT_PATTERN_BUDGET_MS } from './tools/pattern-matcher'

// The SDK's console warnings (e.g. an unknown model id) would go to stderr on every call; what
// matters to the person is shown in the turn instead.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

export type ApprovalDecision = 'approve' | 'reject' | 'always'

export interface LoopSettings {
  /** AI SDK retries of one model call (spec 05: configurable; tests use 0). */
  readonly maxRetries: number
  /** Steps (model calls) per turn before it stops and says so. */
  readonly stepLimit: number
  /** A stream silent this long is stopped and reported as stalled (retryable). */
  readonly stallTimeoutMs: number
  /** Matching time of one grep/glob call's patterns before it stops with TIMEOUT (issue 23: ReDoS). */
  readonly patternBudgetMs: number
}

export const DEFAULT_LOOP_SETTINGS: LoopSettings = {
  maxRetries: 2,
  stepLimit: 50,
  stallTimeoutMs: 120_000,
  patternBudgetMs: DEFAULT_PATTERN_BUDGET_MS,
}

export interface LoopDependencies {
  readonly model: LanguageModel
  readonly system: string
  /** The active branch's conversation before this turn, ending with the user's prompt. */
  readonly history: readonly ModelMessage[]
  readonly tools: readonly ToolDefinition[]
  readonly settings: LoopSettings
  /** Aborted by session.abort: stops the stream, cancels tools, never starts a write. */
  readonly signal: AbortSignal
  /** Read live: the person may change the mode while the turn runs. */
  permissionMode(): PermissionMode
  isCommandAllowed(command: string): boolean
  allowCommand(command: string): void
  /** Resolves when the person answers the approval card for this call (or the turn is aborted). */
  waitForApproval(callId: string): Promise<ApprovalDecision>
  toolContext(callId: string, approved: ReadonlyMap<string, Digest | null> | undefined): ToolContext
  planning(): MutatorContext
  /** Persists the part at `index` and announces it; `streaming` updates may be coalesced. */
  update(index: number, part: TurnPart, streaming?: boolean): void
  /** Spec 06 step snapshots of the project; absent when the engine runs without them. */
  readonly snapshots?: StepSnapshots
  /**
   * Awaited before a command of the current step is let run (a sub-agent's commands use its
   * parent's): the first one of a step captures the tree the step's commands start from.
   */
  readonly commandStarting?: () => Promise<void>
}

/** What the loop needs of the shadow repository: a capture, and which files two captures differ in. */
export interface StepSnapshots {
  capture(): Promise<Capture>
  changedPaths(from: string, to: string): Promise<Outcome<string[]>>
  /** Issue 23: when each step's commands ran, so their changes are credited per session and step. */
  readonly windows?: CommandWindows
}

/** The command windows of one turn (bound to its session, project and shadow repository). */
export interface CommandWindows {
  /** The workspace's journal sequence now: receipts after it land inside a window opened next. */
  sequence(): number
  open(step: number, from: Capture, fromSequence: number, startedAtMs: number): void
  close(step: number, after: Capture, endedAtMs: number): CommandWindow | null
  attribute(input: {
    stepStart: string
    window: CommandWindow
    after: string
    endedAtMs: number
    files: readonly string[]
  }): Promise<StepAttribution>
}

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

function needsApproval(definition: ToolDefinition, mode: PermissionMode): boolean {
  if (definition.kind === 'read') return false
  if (mode === 'auto') return false
  if (definition.kind === 'edit') return mode === 'ask'
  return true
}

async function runTool(
  deps: LoopDependencies,
  byName: ReadonlyMap<string, ToolDefinition>,
  parts: TurnPart[],
  index: number,
  set: (index: number, part: TurnPart) => void,
  spawnFor: (taskCallId: string) => NonNullable<ToolContext['spawn']>,
): Promise<void> {
  let part = parts[index] as ToolPart
  const update = (next: Partial<ToolPart>) => {
    part = { ...part, ...next }
    set(index, part)
  }
  const finishWith = (result: ToolResult) =>
    update(
      result.kind === 'ok'
        ? {
            state: 'completed',
            output: result.output,
            receipt_ids: [...(result.receipt_ids ?? [])],
            ended_at_ms: Date.now(),
          }
        : {
            state: 'error',
            error: { code: result.code, message: result.message },
            receipt_ids: [...(result.receipt_ids ?? [])],
            ended_at_ms: Date.now(),
          },
    )
  const definition = byName.get(part.tool)
  if (!definition) {
    finishWith({ kind: 'error', code: 'NOT_FOUND', message: `There is no tool named "${part.tool}".` })
    return
  }
  const parsed = definition.input.safeParse(part.input)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')
    finishWith({ kind: 'error', code: 'INVALID_REQUEST', message: `Invalid input for ${part.tool}: ${issues}` })
    return
  }
  const input = parsed.data
  let approved: Map<string, Digest | null> | undefined
  const mode = deps.permissionMode()
  const command = definition.kind === 'command' ? String((input as { command?: unknown }).command ?? '') : ''
  if (needsApproval(definition, mode) && !(definition.kind === 'command' && deps.isCommandAllowed(command))) {
    let request: Omit<ApprovalRequest, 'status'>
    if (definition.kind === 'edit' && definition.preview) {
      const context = deps.toolContext(part.id, undefined)
      const preview = await definition.preview(input, context, deps.planning())
      if (preview.kind === 'error') {
        finishWith({ kind: 'error', code: preview.error.code, message: preview.error.message })
        return
      }
      const described = describeChanges(preview.result, definition.sourcesOf?.(input, context.root))
      request = described.request
      approved = described.fingerprints
    } else {
      request = { kind: 'command', command }
    }
    update({ approval: { ...request, status: 'waiting' } })
    const decision = await deps.waitForApproval(part.id)
    if (deps.signal.aborted) return
    if (decision === 'reject') {
      update({ approval: { ...request, status: 'rejected', decided_by: 'user' } })
      finishWith({ kind: 'error', code: 'REJECTED', message: 'The user rejected this call. Ask them how to proceed.' })
      return
    }
    if (decision === 'always' && definition.kind === 'command') deps.allowCommand(command)
    update({
      approval: { ...request, status: 'approved', decided_by: decision === 'always' ? 'always-allow' : 'user' },
    })
  } else if (definition.kind !== 'read') {
    update({
      approval: {
        kind: definition.kind === 'edit' ? 'diff' : 'command',
        ...(command ? { command } : {}),
        status: 'auto',
        decided_by: definition.kind === 'command' && deps.isCommandAllowed(command) ? 'always-allow' : 'mode',
      },
    })
  }
  // The tree the step's commands start from is taken after every approval, right before they run.
  if (definition.kind === 'command') await deps.commandStarting?.()
  if (deps.signal.aborted) return
  update({ state: 'running', started_at_ms: Date.now() })
  let result: ToolResult
  try {
    result = await definition.execute(input, { ...deps.toolContext(part.id, approved), spawn: spawnFor(part.id) })
  } catch (error) {
    // A full disk or too many open files is the person's to fix, and the model's to hear as such.
    const shortage = storageFailure(error, {})
    result = shortage
      ? { kind: 'error', code: shortage.code, message: shortage.message }
      : {
          kind: 'error',
          code: 'INTERNAL',
          message: `The tool failed: ${error instanceof Error ? error.message : String(error)}`,
        }
  }
  if (
    deps.signal.aborted &&
    result.kind === 'ok' &&
    (result.receipt_ids?.length ?? 0) === 0 &&
    definition.kind !== 'read'
  ) {
    // A command that finished as the stop arrived: its effects are unknown to us.
    finishWith({ kind: 'error', code: 'ABORTED', message: 'aborted — result unknown' })
    return
  }
  finishWith(result)
}
