import { z } from 'zod'
import { defineAction } from '../define-action'

export const ProjectSummary = z.object({
  project_id: z.string(),
  root: z.string(),
  name: z.string(),
  is_git: z.boolean(),
})
export type ProjectSummary = z.infer<typeof ProjectSummary>

export const projectOpen = defineAction('project.open', {
  scope: 'app',
  mutating: false,
  payload: z.object({ path: z.string().min(1).max(4096) }).strict(),
  result: z.object({ project_id: z.string(), root: z.string(), name: z.string(), is_git: z.boolean() }),
})

export const projectList = defineAction('project.list', {
  scope: 'app',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.object({ projects: z.array(ProjectSummary) }),
})

/**
 * Shows the shell's native folder picker and opens the chosen folder. Only the desktop shell has
 * one; browser mode answers `UNSUPPORTED` and the UI offers "open by path" instead.
 */
export const projectPick = defineAction('project.pick', {
  scope: 'app',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('opened'), project: ProjectSummary }),
    z.object({ kind: z.literal('cancelled') }),
  ]),
})

export const appInfo = defineAction('app.info', {
  scope: 'app',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.object({
    shell: z.enum(['desktop', 'browser']),
    version: z.string(),
    can_pick_folder: z.boolean(),
  }),
})
