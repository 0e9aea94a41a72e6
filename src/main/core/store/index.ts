export { openDatabase, schemaVersion, type Database } from './database'
