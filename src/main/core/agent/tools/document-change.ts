import { fail, type Outcome } from '../../../../shared/protocol'
import type { DocumentEdited, DocumentsModule } from '../../documents'
import { planWrite, readWriteTarget, type MutatorContext, type PlannedChange } from '../../journal'
import type { ToolContext, ToolDefinition } from './define-tool'
import { defineJournaledTool, mutationResult } from './journal-results'
import { toolError, toolPath } from './tool-paths'

/**
 * The plan of `office_edit` and `pdf_annotate`: the same read-before-write rule as `edit` (never
 * read → CONFLICT not-read; changed since → baseline-mismatch), the current bytes read under the
 * workspace lock, the format change computed in the documents worker, then one `write` of the
 * whole new file through the journal (before/after blobs, one transaction). Any refusal is a
 * precise protocol error and writes nothing.
 */
export async function planDocumentChange(
  rawPath: string,
  context: ToolContext,
  planning: MutatorContext,
  change: (path: string, bytes: Buffer) => Promise<Outcome<DocumentEdited>>,
  onChanged?: (edited: DocumentEdited) => void,
): Promise<Outcome<PlannedChange[]>> {
  const path = toolPath(context.root, rawPath)
  if (path.kind === 'error') return path
  const seen = context.reads.get(path.result)
  if (seen === undefined || seen === null) {
    return fail('CONFLICT', `Read "${path.result}" before changing it.`, { path: path.result, reason: 'not-read' })
  }
  const state = await readWriteTarget(
    { root: planning.workspace.root, dataDir: planning.workspace.dataDir },
    path.result,
    planning.limits.maxFileBytes,
  )
  if (state.kind === 'error') return state
  const current = state.result
  if (current.kind === 'absent') {
    return fail('NOT_FOUND', `"${path.result}" does not exist.`, { path: path.result, reason: 'no-file' })
  }
  if (current.kind === 'directory') {
    return fail('INVALID_REQUEST', `"${path.result}" is a folder, not a file.`, {
      path: path.result,
      reason: 'is-directory',
    })
  }
  if (current.digest !== seen) {
    return fail('CONFLICT', `"${path.result}" changed since you read it; read it again before changing it.`, {
      path: path.result,
      reason: 'baseline-mismatch',
    })
  }
  const edited = await change(path.result, current.bytes)
  if (edited.kind === 'error') return edited
  onChanged?.(edited.result)
  if (edited.result.bytes.equals(current.bytes)) {
    return fail('INVALID_REQUEST', `The changes leave "${path.result}" exactly as it is; nothing was written.`, {
      path: path.result,
    })
  }
  return planWrite(planning, { path: path.result, source: { content: edited.result.bytes }, expected: seen })
}

/**
 * A document tool: journaled like `write` (approval preview, one transaction), with an answer that
 * also lists each edit's line from the patcher and what the model should do next.
 */
export function defineDocumentTool<Input extends { path: string }>(spec: {
  name: string
  description: string
  input: ToolDefinition<Input>['input']
  change: (documents: DocumentsModule, input: Input, path: string, bytes: Buffer) => Promise<Outcome<DocumentEdited>>
  /** Told to the model after a change: anchors may have moved. */
  next: string
}): ToolDefinition<Input> {
  const plan = (
    input: Input,
    context: ToolContext,
    planning: MutatorContext,
    onChanged?: (edited: DocumentEdited) => void,
  ): Promise<Outcome<PlannedChange[]>> => {
    const documents = context.documents
    if (!documents) {
      return Promise.resolve(fail('UNAVAILABLE', 'Document tools are not available in this engine.'))
    }
    return planDocumentChange(
      input.path,
      context,
      planning,
      (path, bytes) => spec.change(documents, input, path, bytes),
      onChanged,
    )
  }
  const tool = defineJournaledTool<Input>({
    name: spec.name,
    description: spec.description,
    input: spec.input,
    verb: 'Changed',
    pathOf: (input) => input.path,
    plan: (input, context, planning) => plan(input, context, planning),
  })
  return {
    ...tool,
    async execute(input, context) {
      const path = toolPath(context.root, input.path)
      if (path.kind === 'error') return toolError(path)
      let summary: readonly string[] = []
      const outcome = await context.mutate((planning) =>
        plan(input, context, planning, (edited) => {
          summary = edited.summary
        }),
      )
      const result = mutationResult(outcome, context, 'Changed')
      if (result.kind === 'error') return result
      const lines = summary.length > 0 ? `\n${summary.map((line) => `- ${line}`).join('\n')}` : ''
      return { ...result, output: `${result.output}${lines}\n${spec.next}` }
    },
  }
}
