export { createSession, getSession, listSessions, transcript, getBranch } from './sessions'
export { beginTurn, finalizeTurn, type Turn } from './turns'
export * from './types'
