export { ChatPane } from './ChatPane'
export { chatCommands } from './commands'
