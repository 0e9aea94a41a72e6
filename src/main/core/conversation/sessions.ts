import { fail, ok, type Outcome, type PermissionMode } from '../../../shared/protocol'
import { statement, type Database } from '../store'
import type { Alignment, SessionRecord } from './types'

/** The `sessions` table: every statement on it is in this file. */

/** The title of a session nobody named yet; its first prompt replaces it. */
export const PLACEHOLDER_TITLE = 'New session'
const MAX_TITLE_CHARS = 60

/**
 * A title from a prompt, as chat tools do: its first non-empty line, whitespace collapsed, cut at
 * a word boundary near 60 characters.
 */
export function titleFromPrompt(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '')
  if (line === undefined) return undefined
  const chars = [...line]
  if (chars.length <= MAX_TITLE_CHARS) return line
  const cut = chars.slice(0, MAX_TITLE_CHARS).join('')
  const space = cut.lastIndexOf(' ')
  return `${space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`
}

export function insertSession(
  db: Database,
  row: {
    session_id: string
    project_id: string
    workspace_id: string
    title: string
    root_node_id: string
    active_branch_id: string
    now: number
    permission_mode: PermissionMode
    titled: boolean
  },
): void {
  statement(
    db,
    `INSERT INTO sessions (session_id, project_id, workspace_id, title, root_node_id, active_branch_id, created_at_ms, updated_at_ms, permission_mode, titled)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.session_id,
    row.project_id,
    row.workspace_id,
    row.title,
    row.root_node_id,
    row.active_branch_id,
    row.now,
    row.now,
    row.permission_mode,
    row.titled ? 1 : 0,
  )
}

export function sessionRow(db: Database, sessionId: string): SessionRecord | undefined {
  return statement(db, 'SELECT * FROM sessions WHERE session_id = ?').get(sessionId) as SessionRecord | undefined
}

export function getSession(db: Database, projectId: string, sessionId: string): Outcome<SessionRecord> {
  const session = sessionRow(db, sessionId)
  if (!session || session.project_id !== projectId) {
    return fail('NOT_FOUND', `There is no session "${sessionId}" in this project.`, {
      session_id: sessionId,
      reason: 'no-session',
    })
  }
  return ok(session)
}

export function projectOfSession(db: Database, sessionId: string): string | undefined {
  const row = statement(db, 'SELECT project_id FROM sessions WHERE session_id = ?').get(sessionId) as
    { project_id: string } | undefined
  return row?.project_id
}

export function listSessions(db: Database, projectId: string, includeArchived = false): SessionRecord[] {
  const sessions = statement(
    db,
    'SELECT * FROM sessions WHERE project_id = ? ORDER BY updated_at_ms DESC, session_id',
  ).all(projectId) as unknown as SessionRecord[]
  return includeArchived ? sessions : sessions.filter((session) => session.state === 'active')
}

/** Every session with its workspace (retention walks them all). */
export function allSessions(db: Database): Array<{ session_id: string; workspace_id: string }> {
  return statement(db, 'SELECT session_id, workspace_id FROM sessions').all() as Array<{
    session_id: string
    workspace_id: string
  }>
}

/** Title, archive state and permission mode; a running session can still be renamed or re-moded. */
export function updateSession(
  db: Database,
  session: SessionRecord,
  changes: { title?: string; archived?: boolean; permission_mode?: PermissionMode },
): SessionRecord {
  statement(
    db,
    'UPDATE sessions SET title = ?, titled = ?, state = ?, permission_mode = ?, updated_at_ms = ? WHERE session_id = ?',
  ).run(
    changes.title?.trim() || session.title,
    changes.title?.trim() ? 1 : session.titled,
    changes.archived === undefined ? session.state : changes.archived ? 'archived' : 'active',
    changes.permission_mode ?? session.permission_mode,
    Date.now(),
    session.session_id,
  )
  return sessionRow(db, session.session_id) as SessionRecord
}

/** A session's permission mode as stored now (a running turn re-reads it for every tool call). */
export function permissionModeOf(db: Database, sessionId: string): PermissionMode {
  const row = statement(db, 'SELECT permission_mode FROM sessions WHERE session_id = ?').get(sessionId) as
    { permission_mode: PermissionMode } | undefined
  return row?.permission_mode ?? 'ask'
}

/** What the files hold (`node_id` null: the active head) and how that relates to the branch. */
export interface FilesState {
  readonly node_id: string | null
  readonly alignment: Alignment
  readonly checkpoint_id: string | null
}

export const ALIGNED: FilesState = { node_id: null, alignment: 'aligned', checkpoint_id: null }

export function setFiles(db: Database, sessionId: string, files: FilesState, now = Date.now()): void {
  statement(
    db,
    'UPDATE sessions SET files_node_id = ?, alignment = ?, alignment_checkpoint_id = ?, updated_at_ms = ? WHERE session_id = ?',
  ).run(files.node_id, files.alignment, files.checkpoint_id, now, sessionId)
}

export function setActiveBranch(db: Database, sessionId: string, branchId: string): void {
  statement(db, 'UPDATE sessions SET active_branch_id = ? WHERE session_id = ?').run(branchId, sessionId)
}

export function touchSession(db: Database, sessionId: string, now = Date.now()): void {
  statement(db, 'UPDATE sessions SET updated_at_ms = ? WHERE session_id = ?').run(now, sessionId)
}

/** The first prompt names a session nobody named (a rename that raced the turn wins). */
export function nameUntitled(db: Database, sessionId: string, title: string): void {
  statement(db, 'UPDATE sessions SET title = ?, titled = 1 WHERE session_id = ? AND titled = 0').run(title, sessionId)
}

export function deleteSession(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM sessions WHERE session_id = ?').run(sessionId)
}
