export { Explorer, type ExplorerHandle } from './Explorer'
export { gitStoreFor } from './git-store'
