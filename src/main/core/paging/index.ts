export { createCursorSigner, type CursorClaims, type CursorSigner, type QueryKind } from './cursor'
export { createSnapshotStore, type Snapshot, type SnapshotStore } from './snapshot-store'
