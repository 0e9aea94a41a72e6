export { createProjectRegistry, type Project, type ProjectRegistry } from './registry'
