export {
  DRAFTS_DATABASE,
  MAX_DRAFTS,
  MAX_DRAFT_BYTES,
  draftBytes,
  draftKey,
  openDraftStore,
  type DraftContent,
  type DraftRecord,
  type DraftState,
  type DraftStore,
  type DraftUsage,
  type DraftWrite,
} from './draft-store'
export {
  createAutosave,
  type Autosave,
  type AutosaveOptions,
  type AutosaveProblem,
  type AutosaveState,
  type PublishFn,
  type PublishOutcome,
} from './autosave'
export { ReadCache, READ_CACHE_BYTES, READ_CACHE_ENTRIES, type CachedRead } from './read-cache'
export {
  closeEditor,
  dirtyPathsOf,
  draftStore,
  markDirty,
  openEditor,
  readCache,
  registerEditor,
  watchReadCache,
  type EditorHandle,
} from './editing'
