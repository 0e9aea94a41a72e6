export { ProjectBar } from './ProjectBar'
