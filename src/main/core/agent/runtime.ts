import { fail, ok, type Outcome, type PatchPart, type PermissionMode, type TurnPart } from '../../../shared/protocol'
import {
  finalizeTurn,
  getSession,
  interruptedTurns,
  permissionModeOf,
  runningParts,
  transcript,
  writeRunningPart,
  writerEpochCurrent,
  type SessionRecord,
  type Turn,
} from '../conversation'
import type { DocumentsModule } from '../documents'
import type { Journal, Receipt, Workspace } from '../journal'
import { resourceShortageOf, statement, type BlobStore, type Database, type Digest } from '../store'
import type { EventBus } from '../events'
import { createCommandGroups, endOrphanedGroups, terminateGroup } from './command-groups'
import { runLoop, type ApprovalDecision, type LoopSettings, type StepSnapshots, type TurnEnd } from './loop'
import { commandEnvironment } from './command-environment'
import { lineageMessages } from './messages'
import { languageModelFor, type ProviderSettings } from './providers'
import type { ReadRecords } from './read-records'
import { systemPrompt } from './system-prompt'
import { AGENT_TOOLS } from './tools'
import { killBackgroundProcesses } from './tools/bash'
import type { ToolContext } from './tools/define-tool'

export interface AgentRuntimeDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly journal: Journal
  readonly dataDir: string
  readonly events: EventBus
  readonly providers: ProviderSettings
  readonly settings: LoopSettings
  readonly onCommitted: (workspace: Workspace, receipt: Receipt) => void
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
  /** Spec 06 step snapshots of a project folder, for one turn (absent: turns run without them). */
  readonly snapshots?: (scope: {
    projectId: string
    root: string
    workspaceId: string
    sessionId: string
    turnId: string
  }) => StepSnapshots
  /** Ends the command windows of turns a stopped process left running (issue 23). */
  readonly closeAbandonedWindows?: (turnIds: readonly string[]) => void
  /** The full file list of a patch part whose stored list was cut short. */
  readonly patchFiles?: (session: SessionRecord, patch: PatchPart) => Promise<readonly string[] | null>
  /** DOCX/XLSX/PPTX/PDF reading, editing and diffing for the document tools and approvals (issue 26). */
  readonly documents?: DocumentsModule | undefined
  /** Begins a turn (the conversation module's, which knows when a restore holds the session). */
  readonly beginTurn: (session: SessionRecord, text: string) => Outcome<Turn>
}

interface RunningTurn {
  readonly turn: Turn
  readonly abort: AbortController
  readonly approvals: Map<string, (decision: ApprovalDecision) => void>
  done: Promise<void>
}

export interface AgentRuntime {
  prompt(workspace: Workspace, session: SessionRecord, text: string): Promise<Outcome<{ turn_id: string }>>
  abort(session: SessionRecord): Promise<Outcome<Record<string, never>>>
  approve(session: SessionRecord, callId: string, decision: ApprovalDecision): Outcome<Record<string, never>>
  /** Spec 05: a turn left running by a stopped process is closed with its unfinished tools marked unknown. */
  recover(): Promise<number>
  /** Stops every running turn; null when nothing was running (and nothing needs waiting for). */
  dispose(): Promise<void> | null
}

const STREAM_FLUSH_MS = 80

export function createAgentRuntime(deps: AgentRuntimeDependencies): AgentRuntime {
  const { db, events } = deps
  const running = new Map<string, RunningTurn>()
  const commandGroups = createCommandGroups(db)

  const readRecords = (sessionId: string): ReadRecords => ({
    get(path) {
      const row = statement(db, 'SELECT digest FROM agent_reads WHERE session_id = ? AND path = ?').get(
        sessionId,
        path,
      ) as { digest: string | null } | undefined
      return row === undefined ? undefined : row.digest
    },
    set(path, digest) {
      statement(db, 'INSERT OR REPLACE INTO agent_reads VALUES (?, ?, ?, ?)').run(sessionId, path, digest, Date.now())
    },
  })

  const ownerOf = (session: SessionRecord) => ({ project_id: session.project_id, session_id: session.session_id })
  const sessionUpdated = (session: SessionRecord) =>
    events.emit('session.updated', ownerOf(session), { session_id: session.session_id })

  async function finish(session: SessionRecord, turnId: string, parts: readonly TurnPart[], status: TurnEnd) {
    const finalized = await finalizeTurn(db, deps.blobs, session, {
      turn_id: turnId,
      parts,
      status,
      statsBudgetBytes: deps.journal.limits.statsBudgetBytes,
      ...(deps.patchFiles
        ? { patchFiles: (patch: PatchPart) => deps.patchFiles?.(session, patch) ?? Promise.resolve(null) }
        : {}),
    })
    const changed = finalized.kind === 'ok' ? finalized.result.summary : null
    // A turn whose commands left only notes (nothing recorded, or nothing restorable by default)
    // still gets its card: issue 23, what was not recorded is said.
    const summary =
      changed &&
      (changed.files > 0 ||
        (changed.command_files ?? 0) > 0 ||
        changed.command_held !== undefined ||
        changed.command_excluded !== undefined ||
        changed.command_unrecorded !== undefined)
        ? changed
        : null
    events.emit('turn.finished', ownerOf(session), { session_id: session.session_id, turn_id: turnId, status, summary })
    sessionUpdated(session)
  }

  async function run(workspace: Workspace, session: SessionRecord, entry: RunningTurn): Promise<void> {
    const { turn, abort } = entry
    const parts: TurnPart[] = []
    const pendingFlush = new Map<number, NodeJS.Timeout>()
    let unsaved = false
    const publish = (index: number) => {
      const part = parts[index]
      if (!part) return
      try {
        writeRunningPart(db, turn.turn_id, index, part)
      } catch (error) {
        // A full data disk must not end the turn (nor, from a flush timer, the process): the part
        // is still shown, and every part is written again when the turn finishes.
        if (resourceShortageOf(error) === undefined) throw error
        if (!unsaved) deps.log('warn', 'A turn part could not be saved: the disk is full', { turn_id: turn.turn_id })
        unsaved = true
      }
      events.emit('turn.part', ownerOf(session), { session_id: session.session_id, turn_id: turn.turn_id, index, part })
    }
    let status: TurnEnd = 'error'
    try {
      const active = deps.providers.active()
      if (!active) {
        parts.push({
          type: 'notice',
          id: 'notice_0',
          reason: 'no-model',
          message: 'No model is connected. Add one in Settings.',
          retryable: true,
        })
        publish(0)
        return
      }
      const nodes = transcript(db, session).nodes
      const reads = readRecords(session.session_id)
      const planning = () => ({ workspace, limits: deps.journal.limits })
      const snapshots = deps.snapshots?.({
        projectId: session.project_id,
        root: workspace.root,
        workspaceId: workspace.workspace_id,
        sessionId: session.session_id,
        turnId: turn.turn_id,
      })
      status = await runLoop(
        {
          ...(snapshots ? { snapshots } : {}),
          model: languageModelFor(active.config, active.apiKey),
          system: await systemPrompt(workspace.root),
          history: lineageMessages(nodes, turn.user_node_id),
          tools: AGENT_TOOLS,
          settings: deps.settings,
          signal: abort.signal,
          permissionMode: () => currentMode(session.session_id),
          isCommandAllowed: (command) =>
            statement(db, 'SELECT 1 FROM session_allowed_commands WHERE session_id = ? AND command = ?').get(
              session.session_id,
              command,
            ) !== undefined,
          allowCommand: (command) =>
            void statement(db, 'INSERT OR IGNORE INTO session_allowed_commands VALUES (?, ?)').run(
              session.session_id,
              command,
            ),
          waitForApproval: (callId) =>
            new Promise<ApprovalDecision>((resolve) => {
              if (abort.signal.aborted) return resolve('reject')
              entry.approvals.set(callId, (decision) => {
                entry.approvals.delete(callId)
                resolve(decision)
              })
            }),
          planning,
          toolContext: (callId, approved) =>
            toolContext(workspace, session, turn, reads, abort.signal, callId, approved),
          update(index, part, streaming) {
            parts[index] = part
            const timer = pendingFlush.get(index)
            if (streaming) {
              if (!timer) {
                pendingFlush.set(
                  index,
                  setTimeout(() => {
                    pendingFlush.delete(index)
                    publish(index)
                  }, STREAM_FLUSH_MS),
                )
              }
              return
            }
            if (timer) {
              clearTimeout(timer)
              pendingFlush.delete(index)
            }
            publish(index)
          },
        },
        parts,
      )
    } catch (error) {
      deps.log('error', 'An agent turn failed', { error: String(error), turn_id: turn.turn_id })
      parts.push({
        type: 'notice',
        id: `notice_${parts.length}`,
        reason: 'provider-error',
        message: `Retrace failed while running this turn: ${error instanceof Error ? error.message : String(error)}`,
        retryable: true,
      })
      status = 'error'
    } finally {
      for (const timer of pendingFlush.values()) clearTimeout(timer)
      parts.forEach((_, index) => publish(index))
      await finish(session, turn.turn_id, parts, status).catch((error: unknown) =>
        deps.log('error', 'Finishing a turn failed', { error: String(error), turn_id: turn.turn_id }),
      )
      running.delete(session.session_id)
    }
  }

  function currentMode(sessionId: string): PermissionMode {
    return permissionModeOf(db, sessionId)
  }

  function toolContext(
    workspace: Workspace,
    session: SessionRecord,
    turn: Turn,
    reads: ReadRecords,
    signal: AbortSignal,
    callId: string,
    approved: ReadonlyMap<string, Digest | null> | undefined,
  ): ToolContext {
    return {
      root: workspace.root,
      dataDir: deps.dataDir,
      signal,
      callId,
      limits: deps.journal.limits,
      patternBudgetMs: deps.settings.patternBudgetMs,
      reads,
      ...(deps.documents ? { documents: deps.documents } : {}),
      // Computed per command: a provider added or re-keyed during the session is covered at once.
      commandEnvironment: () => commandEnvironment(process.env, deps.providers.keyVariables()),
      commandGroups: {
        record: (group) =>
          commandGroups.record({ ...group, sessionId: session.session_id, turnId: turn.turn_id, callId }),
        releaseIfEnded: (pgid, marker) => commandGroups.releaseIfEnded(pgid, marker),
      },
      async mutate(plan) {
        const stopped = () =>
          fail('UNAVAILABLE', 'Stopped before the change was written; nothing was changed.', { reason: 'aborted' })
        if (signal.aborted) return stopped()
        const outcome = await deps.journal.mutate(
          workspace,
          turn.attribution,
          // Checked again under the workspace lock: a stop that arrives while waiting writes nothing,
          // and neither does a turn whose branch was restored or switched since it began.
          async () => {
            if (signal.aborted) return stopped()
            const current = writerEpochCurrent(db, turn)
            return current.kind === 'error' ? current : plan({ workspace, limits: deps.journal.limits })
          },
          approved ? { approved } : undefined,
        )
        if (outcome.kind === 'ok' && outcome.result.status === 'committed') deps.onCommitted(workspace, outcome.result)
        return outcome
      },
    }
  }

  return {
    async prompt(workspace, session, text) {
      if (running.has(session.session_id)) {
        return fail('BUSY', 'This session is still answering; wait for the turn to finish or stop it.', {
          session_id: session.session_id,
          reason: 'turn-running',
        })
      }
      if (!deps.providers.active()) {
        return fail('UNAVAILABLE', 'No model is connected. Add a provider in Settings to use the agent.', {
          reason: 'no-model',
        })
      }
      const begun = deps.beginTurn(session, text)
      if (begun.kind === 'error') return begun
      const entry: RunningTurn = {
        turn: begun.result,
        abort: new AbortController(),
        approvals: new Map(),
        done: Promise.resolve(),
      }
      running.set(session.session_id, entry)
      sessionUpdated(session)
      entry.done = run(workspace, session, entry)
      return ok({ turn_id: begun.result.turn_id })
    },
    async abort(session) {
      const entry = running.get(session.session_id)
      if (!entry) return ok({})
      entry.abort.abort()
      for (const resolve of [...entry.approvals.values()]) resolve('reject')
      // Stop means everything the turn started (issue 23 review): a running command ends through
      // its own abort, and so do the turn's background commands and what its finished commands
      // left running (`cmd &`), which nothing else would end before the engine exits. A turn that
      // ends by itself leaves its background commands running (a dev server the next turn uses).
      const leftRunning = commandGroups.liveOfTurn(entry.turn.turn_id).map((group) => terminateGroup(group.pgid))
      await Promise.all([entry.done, ...leftRunning])
      return ok({})
    },
    approve(session, callId, decision) {
      const entry = running.get(session.session_id)
      const resolve = entry?.approvals.get(callId)
      if (!resolve) {
        return fail('NOT_FOUND', 'No tool call in this session is waiting for that approval.', {
          tool_call_id: callId,
          reason: 'no-pending-approval',
        })
      }
      resolve(decision)
      return ok({})
    },
    async recover() {
      // Before the turns are closed as aborted: what their commands still run is stopped first,
      // so nothing keeps writing into the project after the turn says it ended.
      await endOrphanedGroups(db, deps.log)
      const rows = interruptedTurns(db)
      deps.closeAbandonedWindows?.(rows.map((row) => row.node_id))
      for (const row of rows) {
        const session = getSession(db, row.project_id, row.session_id)
        if (session.kind === 'error') continue
        const parts = runningParts(db, row.node_id).map((part): TurnPart =>
          part.type === 'tool' && (part.state === 'pending' || part.state === 'running')
            ? {
                ...part,
                state: 'error',
                error: {
                  code: 'ABORTED',
                  message:
                    part.state === 'running'
                      ? 'aborted — result unknown (Retrace stopped while this ran)'
                      : 'stopped before it ran — nothing was done',
                },
              }
            : part,
        )
        parts.push({
          type: 'notice',
          id: `notice_${parts.length}`,
          reason: 'interrupted',
          message: 'Retrace stopped while this turn was running. Files it changed are recorded above.',
          retryable: true,
        })
        await finish(session.result, row.node_id, parts, 'aborted')
      }
      return rows.length
    },
    dispose() {
      // Background commands, and what a finished command left running (`cmd &`), end with the engine.
      const background = Promise.all([
        killBackgroundProcesses(),
        ...commandGroups.ownLive().map((group) => terminateGroup(group.pgid)),
      ])
      if (running.size === 0) {
        void background
        return null
      }
      for (const entry of running.values()) {
        entry.abort.abort()
        for (const resolve of [...entry.approvals.values()]) resolve('reject')
      }
      return Promise.allSettled([background, ...[...running.values()].map((entry) => entry.done)]).then(() => undefined)
    },
  }
}
