export { Explorer, type ExplorerHandle } from './Explorer'
export { gitStoreSlot, type GitStore, type GitDecorations } from './git-store'
