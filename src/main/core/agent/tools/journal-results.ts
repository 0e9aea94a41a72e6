import { fail, failureReason, ok, type Outcome } from '../../../../shared/protocol'
import type { MutatorContext, PlannedChange, Receipt } from '../../journal'
import type { ReadRecords } from '../read-records'
import { defineTool, type ToolContext, type ToolDefinition, type ToolResult } from './define-tool'
import { toolError, toolPath } from './tool-paths'

/**
 * The read-before-write rule for changes planned from the disk (apply_patch): every existing file
 * the call replaces, moves or deletes must be what the agent last read, so it never overwrites
 * content it has not seen.
 */
export function checkReadBaselines(changes: readonly PlannedChange[], reads: ReadRecords): Outcome<void> {
  for (const change of changes) {
    if (change.before.kind !== 'regular') continue
    const path = change.old_path ?? change.path
    const seen = reads.get(path)
    if (seen === undefined) {
      return fail('CONFLICT', `Read "${path}" before changing it.`, { path, reason: 'not-read' })
    }
    if (seen !== change.before.digest) {
      return fail('CONFLICT', `"${path}" changed since you read it; read it again before changing it.`, {
        path,
        reason: 'baseline-mismatch',
      })
    }
  }
  return ok(undefined)
}

/** After a commit the agent's baseline is what it just wrote. */
export function recordWritten(receipt: Receipt, reads: ReadRecords): void {
  for (const file of receipt.files) {
    if (file.old_path) reads.set(file.old_path, null)
    reads.set(file.path, file.after.kind === 'regular' ? file.after.digest : null)
  }
}

/** The model-facing result of a committed (or refused) mutation. */
export function mutationResult(outcome: Outcome<Receipt>, context: ToolContext, verb: string): ToolResult {
  if (outcome.kind === 'error') {
    const code = failureReason(outcome.error) === 'aborted' ? 'ABORTED' : outcome.error.code
    return { kind: 'error', code, message: outcome.error.message }
  }
  const receipt = outcome.result
  recordWritten(receipt, context.reads)
  const lines = receipt.files.map((file) => {
    const stats = 'added' in file.stats ? ` (+${file.stats.added} −${file.stats.removed})` : ''
    const name = file.old_path ? `${file.old_path} → ${file.path}` : file.path
    return `${file.operation} ${name}${stats}`
  })
  return { kind: 'ok', output: `${verb}:\n${lines.join('\n')}`, receipt_ids: [receipt.transaction_id] }
}

/**
 * A tool that changes files (write, edit, apply_patch): the same plan previews the approval card's
 * diff and, re-run under the workspace lock, becomes the journal transaction; the answer lists what
 * changed. `pathOf` names the one target a tool takes, refused early when it is not a project path.
 */
export function defineJournaledTool<Input>(spec: {
  name: string
  description: string
  input: ToolDefinition<Input>['input']
  /** The verb of the answer ("Wrote", "Edited", "Patched"). */
  verb: string
  pathOf?: (input: Input) => string
  sourcesOf?: ToolDefinition<Input>['sourcesOf']
  plan(input: Input, context: ToolContext, planning: MutatorContext): Promise<Outcome<PlannedChange[]>>
}): ToolDefinition<Input> {
  return defineTool({
    name: spec.name,
    kind: 'edit',
    description: spec.description,
    input: spec.input,
    preview: spec.plan,
    ...(spec.sourcesOf ? { sourcesOf: spec.sourcesOf } : {}),
    async execute(input, context) {
      if (spec.pathOf) {
        const path = toolPath(context.root, spec.pathOf(input))
        if (path.kind === 'error') return toolError(path)
      }
      return mutationResult(await context.mutate((planning) => spec.plan(input, context, planning)), context, spec.verb)
    },
  })
}
