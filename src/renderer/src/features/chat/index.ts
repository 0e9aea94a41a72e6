export { ChatPane } from './ChatPane'
