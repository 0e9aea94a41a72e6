import type { LanguageModel, ModelMessage } from 'ai'
import type { Outcome, PermissionMode, TurnPart } from '../../../shared/protocol'
import type { MutatorContext } from '../journal'
import type { Capture, CommandWindow, StepAttribution } from '../snapshot'
import type { Digest } from '../store'
import type { ToolContext, ToolDefinition } from './tools/define-tool'
import { DEFAULT_PATTERN_BUDGET_MS } from './tools/pattern-matcher'

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
