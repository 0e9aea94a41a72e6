export { git } from './runner'
export { status, parsePorcelainV2, type StatusEntry } from './status'
export { catBlob } from './cat-file'
export { indexPath } from './rev-parse'
