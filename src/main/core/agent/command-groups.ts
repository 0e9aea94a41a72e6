import { statement, type Database } from '../store'
import { groupExists, groupMembers, isAlive, processStartIdentity } from './process-identity'

/** The environment variable every command runs with: it marks the processes of one recorded group. */
export const COMMAND_MARKER_VARIABLE = 'RETRACE_COMMAND_GROUP'

/** SIGTERM first; what is still there after this long gets SIGKILL. */
const TERMINATE_GRACE_MS = 2_000
const POLL_MS = 25

export interface CommandGroupRecord {
  /** The group id: the pid of the command's first process, its own group leader. */
  readonly pgid: number
  /** `processStartIdentity` of the leader when it was recorded. */
  readonly leaderIdentity: string
  /** The value of `RETRACE_COMMAND_GROUP` in the command's environment. */
  readonly marker: string
  readonly sessionId: string | null
  readonly turnId: string | null
  readonly callId: string
  readonly command: string
}

export type RecordOutcome = { kind: 'recorded' } | { kind: 'failed'; message: string }

/**
 * Issue 23 item 4: every agent command's process group is written to SQLite before the command
 * may run, with the engine that started it. A start-up finds the groups a dead engine left and
 * ends them; a live engine releases its rows as its groups end.
 */
export interface CommandGroups {
  record(group: CommandGroupRecord): RecordOutcome
  /** Forgets the group once no process of it is left. */
  releaseIfEnded(pgid: number, marker: string): void
  /** The groups this engine started that still run (a `cmd &` a finished command left behind). */
  ownLive(): Array<{ pgid: number; marker: string }>
  /**
   * The groups one turn started that still run and are provably the ones recorded (a reused pid
   * is never one of them): its background commands and what its finished commands left running.
   */
  liveOfTurn(turnId: string): Array<{ pgid: number; marker: string }>
}

const ownerPid = process.pid
let ownerIdentity: string | undefined
const ownIdentity = () => (ownerIdentity ??= processStartIdentity(process.pid) ?? `pid:${process.pid}`)

export function createCommandGroups(db: Database): CommandGroups {
  return {
    record(group) {
      try {
        statement(
          db,
          `INSERT OR REPLACE INTO agent_command_groups
             (pgid, leader_identity, marker, owner_pid, owner_identity, session_id, turn_id, call_id, command, started_at_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          group.pgid,
          group.leaderIdentity,
          group.marker,
          ownerPid,
          ownIdentity(),
          group.sessionId,
          group.turnId,
          group.callId,
          // Bounded: the row is for recovery and logs, not a copy of a megabyte command line.
          group.command.slice(0, 4_096),
          Date.now(),
        )
        return { kind: 'recorded' }
      } catch (error) {
        return { kind: 'failed', message: error instanceof Error ? error.message : String(error) }
      }
    },
    releaseIfEnded(pgid, marker) {
      if (groupExists(pgid)) return
      try {
        statement(db, 'DELETE FROM agent_command_groups WHERE pgid = ? AND marker = ?').run(pgid, marker)
      } catch {
        // Called from a child's exit, which can come after the engine closed its database (a
        // background command ended by shutdown): never a throw from an event handler. The row is
        // then a dead engine's, and start-up recovery forgets it.
      }
    },
    ownLive() {
      const rows = statement(
        db,
        'SELECT pgid, marker FROM agent_command_groups WHERE owner_pid = ? AND owner_identity = ?',
      ).all(ownerPid, ownIdentity()) as Array<{ pgid: number; marker: string }>
      return rows.filter((row) => groupExists(row.pgid))
    },
    liveOfTurn(turnId) {
      const rows = statement(
        db,
        'SELECT * FROM agent_command_groups WHERE owner_pid = ? AND owner_identity = ? AND turn_id = ?',
      ).all(ownerPid, ownIdentity(), turnId) as unknown as GroupRow[]
      return rows.filter(isOurs).map((row) => ({ pgid: row.pgid, marker: row.marker }))
    },
  }
}

interface GroupRow {
  pgid: number
  leader_identity: string
  marker: string
  owner_pid: number
  owner_identity: string
  call_id: string
}

/**
 * Start-up recovery: ends every recorded group whose engine is gone (SIGTERM, then SIGKILL after
 * a grace), and forgets it. A group is only signalled when it is provably the one recorded — its
 * leader alive with the recorded start identity, or a member whose environment carries the
 * group's marker — so a pid reused by an unrelated process is never touched. Rows of a live
 * engine (another process on the same data directory) are left to it.
 */
export async function endOrphanedGroups(
  db: Database,
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void,
): Promise<number> {
  const rows = statement(db, 'SELECT * FROM agent_command_groups').all() as unknown as GroupRow[]
  const orphans = rows.filter((row) => {
    const thisEngine = row.owner_pid === process.pid && row.owner_identity === ownIdentity()
    const otherLiveEngine =
      !thisEngine && isAlive(row.owner_pid) && processStartIdentity(row.owner_pid) === row.owner_identity
    return !thisEngine && !otherLiveEngine
  })
  const ours = orphans.filter(isOurs)
  for (const row of ours) {
    log('warn', 'Ending a command a stopped Retrace left running', { pgid: row.pgid, call_id: row.call_id })
  }
  await Promise.all(ours.map((row) => terminateGroup(row.pgid)))
  for (const row of orphans) {
    statement(db, 'DELETE FROM agent_command_groups WHERE pgid = ? AND marker = ?').run(row.pgid, row.marker)
  }
  return ours.length
}

function isOurs(row: GroupRow): boolean {
  if (!groupExists(row.pgid)) return false
  if (processStartIdentity(row.pgid) === row.leader_identity) return true
  const members = groupMembers(row.pgid, `${COMMAND_MARKER_VARIABLE}=${row.marker}`)
  // Without /proc only the leader can be identified: a group whose leader is gone is left alone.
  return members !== null && members.some((member) => member.marked)
}

/** SIGTERM to the whole group, SIGKILL to whatever is left after the grace; resolves when it is gone. */
export async function terminateGroup(pgid: number, graceMs = TERMINATE_GRACE_MS): Promise<void> {
  signalGroup(pgid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (groupHasLiveMember(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS))
  signalGroup(pgid, 'SIGKILL')
  // SIGKILL cannot be ignored; the loop only waits for the kernel to finish delivering it.
  const hardDeadline = Date.now() + 1_000
  while (groupHasLiveMember(pgid) && Date.now() < hardDeadline) await new Promise((r) => setTimeout(r, POLL_MS))
}

function groupHasLiveMember(pgid: number): boolean {
  const members = groupMembers(pgid, '')
  return members === null ? groupExists(pgid) : members.length > 0
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // Already gone.
  }
}
