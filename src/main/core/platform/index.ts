export { isInside } from './fs-paths'
export { resolveStaticFile, type StaticFile } from './static-files'
export { fsyncDirectory, writeNewFileSynced } from './durable'
export { createLimiter } from './bounded'
