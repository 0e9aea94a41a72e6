export { isInside } from './fs-paths'
export { fsyncDirectory, writeNewFileSynced } from './durable'
export { createLimiter } from './bounded'
export { processAlive } from './processes'
