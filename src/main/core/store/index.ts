export {
  inImmediateTransaction,
  inLazyTransaction,
  openDatabase,
  openSqlite,
  schemaVersion,
  statement,
  type Database,
} from './database'
export { createBlobStore, digestOf, type BlobStore, type Digest } from './blobs'
export { createWorkspaceLock, type LockLease, type WorkspaceLock } from './workspace-lock'
export { createLeaseLock, type Lease, type LeaseLock, type LeaseRow, type LeaseRows } from './lease-lock'
export {
  createIdempotencyStore,
  fingerprintOf,
  canonicalJson,
  type ClaimLookup,
  type IdempotencyClaim,
  type IdempotencyStore,
} from './idempotency'
export {
  createIdempotentMutations,
  type IdempotencyHooks,
  type IdempotentMutations,
  type SettledStatus,
} from './idempotent-mutation'
export { readSetting, writeSetting } from './app-settings'
export { resourceShortageOf, storageFailure, type ResourceShortage, type StorageSide } from './storage-errors'
