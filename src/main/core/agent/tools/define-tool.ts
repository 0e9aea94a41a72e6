import type { z } from 'zod'
import type { Outcome } from '../../../../shared/protocol'
import type { JournalLimits, MutatorContext, PlannedChange, Receipt } from '../../journal'
import type { DocumentsModule } from '../../documents'
import type { CommandGroupRecord, RecordOutcome } from '../command-groups'
import type { ReadRecords } from '../read-records'

/**
 * What a tool may use. Tools never write project files themselves: every change goes through
 * `mutate`, the journal's trusted path with the turn's attribution (spec 03).
 */
export interface ToolContext {
  /** The project root (a real path). */
  readonly root: string
  /** Retrace's data directory: never listed, searched or written by tools. */
  readonly dataDir: string
  /** Aborted when the person stops the turn; a tool must stop promptly and must not start writes. */
  readonly signal: AbortSignal
  readonly callId: string
  readonly limits: JournalLimits
  /**
   * Matching time one grep or glob call may spend on the model's patterns before it is stopped
   * with TIMEOUT (default: DEFAULT_PATTERN_BUDGET_MS in pattern-matcher.ts).
   */
  readonly patternBudgetMs?: number
  /** Baselines of what this session read, so a write is checked against what the model saw. */
  readonly reads: ReadRecords
  /** A trusted mutation attributed to the turn; refuses to start once `signal` is aborted. */
  mutate(plan: (context: MutatorContext) => Promise<Outcome<PlannedChange[]>>): Promise<Outcome<Receipt>>
  /**
   * Where a command's process group is recorded before it may run (issue 23), bound to the turn.
   * Absent only in unit tests of the tools themselves: the engine always provides it.
   */
  readonly commandGroups?: {
    record(group: Pick<CommandGroupRecord, 'pgid' | 'leaderIdentity' | 'marker' | 'command'>): RecordOutcome
    releaseIfEnded(pgid: number, marker: string): void
  }
  /**
   * The environment a command runs with: the engine's minus Retrace's secrets and internals
   * (`command-environment.ts`). Absent only in unit tests of the tools: bash then applies the same
   * rule without any configured provider.
   */
  readonly commandEnvironment?: () => Record<string, string>
  /**
   * Reads, changes and compares DOCX, XLSX, PPTX and PDF files in a bounded worker (issue 26).
   * Absent only in unit tests of the tools: `read` then shows documents as binary, and
   * `office_edit`/`pdf_annotate` answer UNAVAILABLE.
   */
  readonly documents?: DocumentsModule
  /** The `task` tool's sub-agent, run by the loop for this call (a sub-agent has no `task` tool to use it). */
  spawn?(task: { description: string; prompt: string }): Promise<ToolResult>
}

/** The model-facing outcome of a call: text for the model, or a precise error it can act on. */
export type ToolResult =
  | { readonly kind: 'ok'; readonly output: string; readonly receipt_ids?: readonly string[] }
  | {
      readonly kind: 'error'
      readonly code: string
      readonly message: string
      readonly receipt_ids?: readonly string[]
    }

/**
 * `read` tools run without asking; `edit` tools (file changes through the journal) ask in `ask`
 * mode and show a diff; `command` tools ask unless the session is in `auto` mode.
 */
export type ToolKind = 'read' | 'edit' | 'command'

export interface ToolDefinition<Input = unknown> {
  readonly name: string
  readonly kind: ToolKind
  /** Model-facing: what the tool does and how to use it. Part of the public contract. */
  readonly description: string
  readonly input: z.ZodType<Input>
  /**
   * For `edit` tools: the changes the call would make, computed from the disk now, for the
   * approval card's diff and fingerprints. Read-only; the real plan is recomputed under the lock.
   */
  preview?(input: Input, context: ToolContext, planning: MutatorContext): Promise<Outcome<PlannedChange[]>>
  /**
   * For `edit` tools that publish another project file's bytes (write's `source_path`): each target
   * path's root-relative source, named on the approval card next to the target (issue 23).
   */
  sourcesOf?(input: Input, root: string): ReadonlyMap<string, string>
  execute(input: Input, context: ToolContext): Promise<ToolResult>
}

export function defineTool<Input>(definition: ToolDefinition<Input>): ToolDefinition<Input> {
  return definition
}

/** Model-facing output is bounded: a long result keeps its head and tail and says what was cut. */
export function boundOutput(text: string, maxChars = 30_000): string {
  if (text.length <= maxChars) return text
  const half = Math.floor(maxChars / 2)
  const cut = text.length - 2 * half
  return `${text.slice(0, half)}\n… [${cut} characters omitted] …\n${text.slice(text.length - half)}`
}
