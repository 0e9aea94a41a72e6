import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { inImmediateTransaction, statement, type Database } from '../store'
import type { PermissionMode } from '../../../shared/protocol'
import type { BranchRecord, NodeRecord, Part, SessionRecord, TurnSummary } from './types'

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

/**
 * A session starts with its persistent synthetic ROOT node and a main branch whose head is that
 * ROOT (spec 04: a rewind before the first turn lands on ROOT, never on a null head).
 */
export function createSession(
  db: Database,
  input: { project_id: string; workspace_id: string; title?: string | undefined; permission_mode?: PermissionMode },
): SessionRecord {
  return inImmediateTransaction(db, () => {
    const now = Date.now()
    const sessionId = `ses_${randomUUID()}`
    const rootId = `node_${randomUUID()}`
    const branchId = `br_${randomUUID()}`
    // The session row first (nodes and branches reference it), pointing at ids created just below.
    statement(
      db,
      `INSERT INTO sessions (session_id, project_id, workspace_id, title, root_node_id, active_branch_id, created_at_ms, updated_at_ms, permission_mode, titled)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      sessionId,
      input.project_id,
      input.workspace_id,
      input.title?.trim() || PLACEHOLDER_TITLE,
      rootId,
      branchId,
      now,
      now,
      input.permission_mode ?? 'ask',
      input.title?.trim() ? 1 : 0,
    )
    statement(db, "INSERT INTO nodes VALUES (?, ?, NULL, 'root', '[]', 'complete', ?)").run(rootId, sessionId, now)
    statement(
      db,
      'INSERT INTO branches (branch_id, session_id, parent_branch_id, fork_checkpoint_id, head_node_id, head_version, writer_epoch, created_at_ms) VALUES (?, ?, NULL, NULL, ?, 0, 0, ?)',
    ).run(branchId, sessionId, rootId, now)
    return getSessionRow(db, sessionId) as SessionRecord
  })
}

function getSessionRow(db: Database, sessionId: string): SessionRecord | undefined {
  return statement(db, 'SELECT * FROM sessions WHERE session_id = ?').get(sessionId) as SessionRecord | undefined
}

export function getSession(db: Database, projectId: string, sessionId: string): Outcome<SessionRecord> {
  const session = getSessionRow(db, sessionId)
  if (!session || session.project_id !== projectId) {
    return fail('NOT_FOUND', `There is no session "${sessionId}" in this project.`, { session_id: sessionId })
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
  return getSessionRow(db, session.session_id) as SessionRecord
}

/** The assistant node now answering in this session, if any. */
/** A session's permission mode as stored now (a running turn re-reads it for every tool call). */
export function permissionModeOf(db: Database, sessionId: string): PermissionMode {
  const row = statement(db, 'SELECT permission_mode FROM sessions WHERE session_id = ?').get(sessionId) as
    { permission_mode: PermissionMode } | undefined
  return row?.permission_mode ?? 'ask'
}

/** Assistant turns left `running` (by a process that stopped), with their session and project. */
export function interruptedTurns(
  db: Database,
): Array<{ node_id: string; parent_node_id: string; project_id: string; session_id: string }> {
  return statement(
    db,
    "SELECT n.node_id, n.parent_node_id, s.project_id, s.session_id FROM nodes n JOIN sessions s ON s.session_id = n.session_id WHERE n.status = 'running' AND n.kind = 'assistant'",
  ).all() as Array<{ node_id: string; parent_node_id: string; project_id: string; session_id: string }>
}

/** Transaction → change set of one session, for the attribution of review rows. */
export function changeSetIndex(db: Database, sessionId: string): Map<string, string> {
  const index = new Map<string, string>()
  for (const row of statement(db, 'SELECT change_set_id, transaction_ids FROM change_sets WHERE session_id = ?').all(
    sessionId,
  ) as Array<{ change_set_id: string; transaction_ids: string }>) {
    for (const id of JSON.parse(row.transaction_ids) as string[]) index.set(id, row.change_set_id)
  }
  return index
}

/** Whether `turnId` is an assistant turn of the session. */
export function isTurnOf(db: Database, sessionId: string, turnId: string): boolean {
  return (
    statement(db, "SELECT 1 FROM nodes WHERE node_id = ? AND session_id = ? AND kind = 'assistant'").get(
      turnId,
      sessionId,
    ) !== undefined
  )
}

export function runningTurnId(db: Database, sessionId: string): string | null {
  const row = statement(
    db,
    "SELECT node_id FROM nodes WHERE session_id = ? AND status = 'running' AND kind = 'assistant' LIMIT 1",
  ).get(sessionId) as { node_id: string } | undefined
  return row?.node_id ?? null
}

/** The persisted parts of a running turn, in order. */
export function runningParts(db: Database, nodeId: string): Part[] {
  return (
    statement(db, 'SELECT body FROM turn_parts WHERE node_id = ? ORDER BY idx').all(nodeId) as Array<{ body: string }>
  ).map((row) => JSON.parse(row.body) as Part)
}

/** Writes one part of a running turn (the transition is durable before it is announced). */
export function writeRunningPart(db: Database, nodeId: string, index: number, part: Part): void {
  statement(db, 'INSERT OR REPLACE INTO turn_parts (node_id, idx, body) VALUES (?, ?, ?)').run(
    nodeId,
    index,
    JSON.stringify(part),
  )
}

/** A branch (a purged one is a tombstone, `archived = 2`, and is not found). */
export function getBranch(db: Database, branchId: string): BranchRecord | undefined {
  const row = statement(db, 'SELECT * FROM branches WHERE branch_id = ? AND archived < 2').get(branchId) as
    (Omit<BranchRecord, 'archived'> & { archived: number }) | undefined
  return row ? { ...row, archived: row.archived !== 0 } : undefined
}

interface NodeRow {
  node_id: string
  session_id: string
  parent_node_id: string | null
  kind: NodeRecord['kind']
  parts: string
  status: NodeRecord['status']
  created_at_ms: number
}

/** Every node of the session with its parts, and each finished turn's stored summary. */
export function transcript(db: Database, session: SessionRecord): { branches: BranchRecord[]; nodes: NodeRecord[] } {
  const rows = statement(db, 'SELECT * FROM nodes WHERE session_id = ? ORDER BY created_at_ms, rowid').all(
    session.session_id,
  ) as unknown as NodeRow[]
  const summaries = new Map<string, TurnSummary>()
  for (const row of statement(db, 'SELECT producer_turn_id, summary FROM change_sets WHERE session_id = ?').all(
    session.session_id,
  ) as Array<{ producer_turn_id: string; summary: string }>) {
    summaries.set(row.producer_turn_id, JSON.parse(row.summary) as TurnSummary)
  }
  const nodes = rows.map((row): NodeRecord => {
    const summary = summaries.get(row.node_id)
    const parts = row.status === 'running' ? runningParts(db, row.node_id) : (JSON.parse(row.parts) as Part[])
    return { ...row, parts, ...(summary ? { summary } : {}) }
  })
  const branches = (
    statement(db, 'SELECT branch_id FROM branches WHERE session_id = ? ORDER BY created_at_ms, rowid').all(
      session.session_id,
    ) as Array<{
      branch_id: string
    }>
  ).flatMap((row) => getBranch(db, row.branch_id) ?? [])
  return { branches, nodes }
}
