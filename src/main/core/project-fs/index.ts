export {
  PINNING_MODE,
  closeDir,
  openChain,
  openChild,
  openRoot,
  sameIdentity,
  verifyChain,
  type ChainOutcome,
  type DirChain,
  type DirIdentity,
  type OpenDir,
  type OpenFailure,
  type PinningMode,
} from './pinned-dir'
export {
  openFileForRead,
  readLeaf,
  readToEnd,
  statLeaf,
  syncDir,
  writeNewFile,
  type FileIdentity,
  type LeafRead,
  type LeafStat,
  type OpenedFile,
} from './leaf'
export { PinnedDirs, type Place } from './places'
export { readLinkPath, readPath, statPath, withParent, type PathEntry, type PathRead } from './read-path'
export { unreachablePath } from './io-failure'
