export { Explorer } from './Explorer'
export { explorerCommands, revealInExplorer } from './commands'
export { gitStoreSlot, type GitStore, type GitDecorations } from './git-store'
