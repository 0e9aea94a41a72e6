export { openForRead, type OpenedForRead, type ProjectRoots } from './containment'
export { createDirectoryListing, listDirectory, type DirectoryListing } from './list'
export { createByteBudget, readFile, DEFAULT_READ_LIMITS, type ByteBudget, type ReadLimits } from './read'
export { BYTES_ROUTE, createByteTransfers, parseRange, type ByteResponse, type ByteTransfers } from './bytes'
export { classifyContent, sniffMime } from './sniff'
export { createHumanOperations, type HumanOperations, type MutationResult, type OperationContext } from './operations'
export { walkTree, type TreeWalkOptions, type WalkedEntry } from './walk'
export { outerIgnoreOf } from './outer-ignore'
export { createSearchRunner, type SearchRunner } from './search-runner'
export { searchProject, type ProjectSearch } from './search'
export { type ContentSearchOptions } from './content-search'
export { fileHistory, readVersion, versionBytes, type FileHistoryDeps, type SessionLookup } from './versions'
export { createFilesModule, type FilesModule } from './module'
export {
  DEFAULT_PATTERN_BUDGET_MS,
  MAX_PATTERN_CHARS,
  withPatternMatcher,
  type LineMatch,
  type MatchStep,
  type PatternMatcher,
} from './pattern-matcher'
