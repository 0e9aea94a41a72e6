export { createProjectRegistry, type Project, type ProjectRegistry } from './registry'
export { createProjectsModule, type ProjectsModule } from './module'
