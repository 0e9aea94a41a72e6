export { ProjectSubscriptions } from './event-scope'
export { resolveStaticFile, type StaticFile } from './static-files'
