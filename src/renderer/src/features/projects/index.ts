export { ProjectSwitcher } from './ProjectSwitcher'
