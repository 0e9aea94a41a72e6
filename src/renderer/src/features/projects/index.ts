export { ProjectSwitcher } from './ProjectSwitcher'
export { projectCommands } from './commands'
