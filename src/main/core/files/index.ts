export { openForRead, type OpenedForRead, type ProjectRoots } from './containment'
export { createDirectoryListing, listDirectory, type DirectoryListing } from './list'
export { createByteBudget, readFile, DEFAULT_READ_LIMITS, type ByteBudget, type ReadLimits } from './read'
export { BYTES_ROUTE, createByteTransfers, parseRange, type ByteResponse, type ByteTransfers } from './bytes'
