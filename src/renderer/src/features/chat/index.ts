export { ChatPane } from './ChatPane'
export { activeLineage, textOf, summaryOf } from './transcript-model'
