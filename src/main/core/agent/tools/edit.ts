import { z } from 'zod'
import { fail, type Outcome } from '../../../../shared/protocol'
import { planEdit, type MutatorContext, type PlannedChange } from '../../journal'
import type { ToolContext } from './define-tool'
import { defineJournaledTool } from './journal-results'
import { toolPath } from './tool-paths'

const EditInput = z.object({
  file_path: z.string().min(1),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
})
type EditInput = z.infer<typeof EditInput>

async function plan(
  input: EditInput,
  context: ToolContext,
  planning: MutatorContext,
): Promise<Outcome<PlannedChange[]>> {
  const path = toolPath(context.root, input.file_path)
  if (path.kind === 'error') return path
  const seen = context.reads.get(path.result)
  if (seen === undefined || seen === null) {
    return fail('CONFLICT', `Read "${path.result}" before editing it.`, { path: path.result, reason: 'not-read' })
  }
  return planEdit(planning, {
    path: path.result,
    old_string: input.old_string,
    new_string: input.new_string,
    replace_all: input.replace_all ?? false,
    expected: seen,
  })
}

export const editTool = defineJournaledTool({
  name: 'edit',
  description: [
    'Replaces text in a file you have read: old_string must occur exactly once (include enough',
    'surrounding lines to make it unique) unless replace_all is true, which replaces every occurrence.',
    'Match the file exactly, including indentation, without the line-number prefix of read.',
    'Refused if the file changed since you read it. Every edit is recorded and can be undone.',
  ].join(' '),
  input: EditInput,
  verb: 'Edited',
  pathOf: (input) => input.file_path,
  plan,
})
