import { z } from 'zod'
import { defineTool } from './define-tool'

/**
 * Spec 05 `task`: a sub-agent for a self-contained piece of work. It runs with the same tools
 * (except `task`), the same permission mode and the same approvals, on the same workspace, in a
 * conversation of its own that starts with `prompt`; its last words are this call's output.
 */
export const taskTool = defineTool({
  name: 'task',
  kind: 'read',
  description: [
    'Hands a self-contained piece of work to a sub-agent and waits for its report. The sub-agent',
    'starts with no memory of this conversation: prompt must say everything it needs (files, goal,',
    'constraints, what to report). It has the same tools except task, and its file changes are part',
    'of this turn (they are reviewed and undone with it). description is a short title (3-6 words).',
  ].join(' '),
  input: z.object({
    description: z.string().min(1).max(200),
    prompt: z.string().min(1),
  }),
  async execute(input, context) {
    if (!context.spawn) {
      return { kind: 'error', code: 'UNAVAILABLE', message: 'A sub-agent cannot be started from here.' }
    }
    return context.spawn(input)
  },
})
