export { resolveForRead, type ProjectRoots } from './containment'
export { listDirectory, type DirectoryListing } from './list'
export { readFile, DEFAULT_READ_LIMITS, type ReadLimits } from './read'
