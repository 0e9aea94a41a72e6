import { chatCommands } from '../features/chat'
import { explorerCommands } from '../features/explorer'
import { projectCommands } from '../features/projects'
import { reviewCommands } from '../features/review'
import { searchCommands } from '../features/search'
import { workbenchCommands } from './workbench/commands'
import type { Workbench } from './workbench/workbench'

/**
 * Every command of the window in one registry: the workbench's own, then each feature's from its
 * own folder. Adding a command touches the folder that does the work and nothing here.
 */
export function registerCommands(workbench: Workbench): () => void {
  return workbench.commands.register([
    ...workbenchCommands(workbench),
    ...explorerCommands,
    ...reviewCommands,
    ...chatCommands,
    ...projectCommands,
    ...searchCommands,
  ])
}
