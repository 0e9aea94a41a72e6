/** What changed inside a document (issue 26): one view for Review, approval cards and restore previews. */
export { DocumentDiffView } from './lazy-view'
export { countsLabel, countsText } from './counts'
