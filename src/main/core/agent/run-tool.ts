import type { ApprovalRequest, PermissionMode, ToolPart, TurnPart } from '../../../shared/protocol'
import { storageFailure, type Digest } from '../store'
import { describeChanges } from './approvals'
import type { LoopDependencies } from './loop-types'
import type { ToolContext, ToolDefinition, ToolResult } from './tools/define-tool'

function needsApproval(definition: ToolDefinition, mode: PermissionMode): boolean {
  if (definition.kind === 'read') return false
  if (mode === 'auto') return false
  if (definition.kind === 'edit') return mode === 'ask'
  return true
}

/** One tool call of a step: input check, approval (by mode), execution, and its part's states. */
export async function runTool(
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
      const described = await describeChanges(
        preview.result,
        definition.sourcesOf?.(input, context.root),
        context.documents,
      )
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
