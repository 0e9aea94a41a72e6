import './chat.css'
import { useEffect, useMemo, useRef, useState } from 'react'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { failureMessage, isFailure } from '../../ui/outcome-message'
import { activeLineage, useSessions, useTranscript, type TranscriptData } from '../session'
import { SettingsPanel, useProviders } from '../settings'
import { AlignmentBanner } from './AlignmentBanner'
import type { TurnContext } from './AssistantTurn'
import { composerFocusRequests, settingsRequests } from './commands'
import { Composer, type ComposerHandle, type SendBlock } from './Composer'
import { ForkDialog } from './ForkDialog'
import { RewindPicker } from './RewindPicker'
import { RewindSheet } from './RewindSheet'
import { SessionBar } from './SessionBar'
import type { SlashCommandName } from './slash-commands'
import { lineagePrompts, promptBefore } from './transcript-model'
import { Transcript } from './Transcript'
import { useSessionFailure } from './use-session-failure'
import { applyRestore, planRestore, type RewindTarget } from './use-rewind'
import { ErrorLine } from '../../ui/ErrorLine'
import { RestoreNote, type RestoreDone } from './RestoreNote'

/** A new session is named after the first line of its first prompt. */
function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? ''
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

/** An abort waits for running tools to settle (spec 05), which can take a while. */
const ABORT_TIMEOUT_MS = 60_000

/** The right-hand pane: the session bar, the transcript with its turn cards, and the composer. */
export function ChatPane(props: {
  projectId: string
  /** Tells the workspace which session is shown (the Review tab reviews it). */
  onSessionChange?: (sessionId: string | null) => void
  onReview?: (turnId: string, path?: string) => void
  /** Opens Review on This turn's "Changed by commands" filter (step snapshots). */
  onReviewCommands?: (turnId: string) => void
  onOpenFile?: (path: string) => void
  /** The project is a git repository (Fork with files is offered). */
  isGit?: boolean
  /** Shows another project (a fork's worktree). */
  onSwitchProject?: (projectId: string) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const sessions = useSessions(props.projectId)
  const current = sessions.current
  const sessionId = current?.session_id ?? null
  const transcript = useTranscript(props.projectId, sessionId)
  const { onSessionChange } = props
  useEffect(() => {
    onSessionChange?.(sessionId)
  }, [onSessionChange, sessionId])
  const providers = useProviders()
  const [settingsOpen, setSettingsOpen] = useState(false)
  const [restoreDone, setRestoreDone] = useState<RestoreDone | null>(null)
  const composer = useRef<ComposerHandle>(null)
  // The window's commands (menu, palette, keys) reach this pane through the chat's own requests.
  useEffect(() => {
    const mine = (request: { projectId: string }) => request.projectId === props.projectId
    const offSettings = settingsRequests.listen((request) => {
      if (mine(request)) setSettingsOpen(true)
    })
    const offFocus = composerFocusRequests.listen((request) => {
      if (mine(request)) composer.current?.focus()
    })
    return () => {
      offSettings()
      offFocus()
    }
  }, [props.projectId])
  const failure = useSessionFailure()
  const [sheet, setSheet] = useState<RewindTarget | null>(null)
  const [picker, setPicker] = useState(false)
  const [forkFrom, setForkFrom] = useState<string | null>(null)
  const [commandStatus, setCommandStatus] = useState<string | null>(null)
  const owner = { project_id: props.projectId }
  const lineage = useMemo(() => (transcript.data ? activeLineage(transcript.data) : []), [transcript.data])
  const prompts = useMemo(() => lineagePrompts(lineage), [lineage])
  // The transcript's copy of the session is read after every turn event, so it is the fresher one.
  const session = transcript.data?.session ?? current
  const running = (session?.running_turn_id ?? null) !== null
  const blocked: SendBlock =
    providers.hasActiveProvider === false ? 'no-model' : session?.state === 'archived' ? 'archived' : null

  async function send(text: string): Promise<boolean> {
    failure.clear()
    setRestoreDone(null)
    let target = sessionId
    if (target === null) {
      const created = await sessions.create(titleFrom(text))
      if (created.kind !== 'ok') {
        failure.fail(null, created)
        return false
      }
      target = created.result.session_id
    }
    const outcome = await client.request('session.prompt', { session_id: target, text }, { owner })
    if (outcome.kind === 'ok') {
      transcript.reload()
      return true
    }
    if (isFailure(outcome, 'UNAVAILABLE', 'no-model')) void providers.reload()
    if (isFailure(outcome, 'UNAVAILABLE', 'misaligned')) {
      // Spec 04: a turn never starts on files that are not the branch's code; the banner says why.
      failure.say(target, t('composer.misaligned'))
      transcript.reload()
      return false
    }
    failure.fail(target, outcome)
    return false
  }
  async function stop() {
    if (sessionId === null) return
    const outcome = await client.request(
      'session.abort',
      { session_id: sessionId },
      { owner, timeoutMs: ABORT_TIMEOUT_MS },
    )
    failure.fail(sessionId, outcome)
    transcript.reload()
  }
  async function command(name: SlashCommandName) {
    failure.clear()
    setRestoreDone(null)
    switch (name) {
      case '/new': {
        const created = await sessions.create()
        failure.fail(sessionId, created)
        return
      }
      case '/undo':
        return undo()
      case '/redo':
        return redo()
      case '/rewind':
        setPicker(true)
        return
    }
  }

  const sessionOwner = sessionId === null ? null : { project_id: props.projectId, session_id: sessionId }
  const fail = (outcome: Exclude<RequestOutcome<unknown>, { kind: 'ok' }>) => failure.fail(sessionId, outcome)
  function openSheet(
    turnId: string,
    boundary: RewindTarget['boundary'],
    data: TranscriptData | null = transcript.data,
  ) {
    const prompt = data ? (promptBefore(data.nodes, turnId) ?? '') : ''
    setPicker(false)
    setSheet({ turnId, boundary, prompt })
  }

  /**
   * Spec 06 /undo: stop a running turn first, then rewind code and conversation to before the
   * latest prompt of the active branch and put that prompt back into the box. A plan that is not
   * ready opens the impact sheet instead (nothing is written without it being shown).
   */
  async function undo() {
    if (sessionId === null || sessionOwner === null) return
    setCommandStatus(t('composer.undoing'))
    try {
      if (running) await stop()
      const read = await client.request('session.transcript', { session_id: sessionId }, { owner })
      if (read.kind !== 'ok') return fail(read)
      const latest = lineagePrompts(activeLineage(read.result)).at(-1)
      if (!latest) {
        failure.say(sessionId, t('composer.nothingToUndo'))
        return
      }
      const planned = await planRestore(client, sessionOwner, {
        operation: 'rewind',
        turn_id: latest.turn.node_id,
        boundary: 'before_turn',
        mode: 'code_and_conversation',
      })
      if (planned.kind !== 'ok') return fail(planned)
      if (planned.result.status !== 'ready') {
        openSheet(latest.turn.node_id, 'before_turn', read.result)
        return
      }
      const applied = await applyRestore(client, sessionOwner, planned.result, crypto.randomUUID())
      if (applied.kind !== 'ok') return fail(applied)
      const text = applied.result.prompt_text ?? ''
      composer.current?.replaceText(text)
      setRestoreDone({ kind: 'undone', files: planned.result.impact.files, sessionId })
    } finally {
      setCommandStatus(null)
      transcript.reload()
    }
  }

  /**
   * Spec 06 /redo: one turn forward along the branch the last /undo (or rewind) left — at its last
   * turn back on that branch with its files; right after a turn card's Undo, that turn's Redo.
   */
  async function redo() {
    if (sessionId === null || sessionOwner === null) return
    setCommandStatus(t('composer.redoing'))
    try {
      let planned = await planRestore(client, sessionOwner, { operation: 'unrewind' })
      if (isFailure(planned, 'UNAVAILABLE', 'nothing-to-redo')) {
        const redoTurn = transcript.data?.restore.redo_turn_id ?? null
        if (redoTurn === null) {
          failure.say(sessionId, t('composer.nothingToRedo'))
          return
        }
        planned = await planRestore(client, sessionOwner, { operation: 'redo', turn_id: redoTurn })
      }
      if (planned.kind !== 'ok') return fail(planned)
      if (planned.result.status !== 'ready') {
        failure.say(
          sessionId,
          t('restore.failed', {
            message: [...planned.result.conflicts, ...planned.result.unavailable].map((c) => c.path).join(', '),
          }),
        )
        return
      }
      const applied = await applyRestore(client, sessionOwner, planned.result, crypto.randomUUID())
      if (applied.kind !== 'ok') return fail(applied)
      // The prompt /undo put back is in the conversation again.
      composer.current?.replaceText('')
      setRestoreDone({ kind: 'redone', files: planned.result.impact.files, sessionId })
    } finally {
      setCommandStatus(null)
      transcript.reload()
    }
  }

  async function branchFrom(nodeId: string) {
    if (sessionId === null) return
    const outcome = await client.request('session.branch', { session_id: sessionId, node_id: nodeId }, { owner })
    if (outcome.kind !== 'ok') fail(outcome)
    transcript.reload()
  }
  async function switchBranch(branchId: string) {
    if (sessionId === null) return
    const outcome = await client.request(
      'session.switch_branch',
      { session_id: sessionId, branch_id: branchId },
      { owner },
    )
    if (outcome.kind !== 'ok') fail(outcome)
    transcript.reload()
  }
  async function archiveBranch(branchId: string, archived: boolean) {
    if (sessionId === null) return
    const outcome = await client.request(
      'session.archive_branch',
      { session_id: sessionId, branch_id: branchId, archived },
      { owner },
    )
    if (outcome.kind !== 'ok') fail(outcome)
    transcript.reload()
  }
  async function purgeBranch(branchId: string) {
    if (sessionId === null) return
    const outcome = await client.request('session.purge', { session_id: sessionId, branch_id: branchId }, { owner })
    if (outcome.kind !== 'ok') fail(outcome)
    transcript.reload()
  }
  function closeSettings() {
    setSettingsOpen(false)
    void providers.reload()
  }

  if (settingsOpen) {
    return (
      <aside className="chat" data-testid="chat" aria-label={t('chat.title')}>
        <SettingsPanel onClose={closeSettings} onChanged={() => void providers.reload()} />
      </aside>
    )
  }

  const context: TurnContext | null =
    sessionId === null || !transcript.data
      ? null
      : {
          projectId: props.projectId,
          sessionId,
          offers: transcript.data.restore,
          sessionBusy: running,
          onDecide: (toolCallId, decision) =>
            client.request('session.approve', { session_id: sessionId, tool_call_id: toolCallId, decision }, { owner }),
          onRestored: transcript.reload,
          onOpenSettings: () => setSettingsOpen(true),
          onRestoreAfter: (turnId) => openSheet(turnId, 'after_turn'),
          alignedHeadId:
            transcript.data.session.alignment.state === 'aligned'
              ? transcript.data.session.alignment.head_node_id
              : null,
          onBranch: (turnId) => void branchFrom(turnId),
          onFork: (turnId) => setForkFrom(turnId),
          ...(props.onReview ? { onReview: props.onReview } : {}),
          ...(props.onReviewCommands ? { onReviewCommands: props.onReviewCommands } : {}),
          ...(props.onOpenFile ? { onOpenFile: props.onOpenFile } : {}),
        }

  return (
    <aside className="chat" data-testid="chat" aria-label={t('chat.title')}>
      <SessionBar
        sessions={sessions.sessions}
        current={current}
        onSelect={(id) => {
          failure.clear()
          sessions.select(id)
        }}
        onCreate={() => sessions.create()}
        onUpdate={sessions.update}
        onOpenSettings={() => setSettingsOpen(true)}
        branches={
          transcript.data && sessionId !== null
            ? {
                list: transcript.data.branches,
                activeBranchId: transcript.data.session.active_branch_id,
                disabled: running,
                onSwitch: (branchId) => void switchBranch(branchId),
                onArchive: (branchId, archived) => void archiveBranch(branchId, archived),
                onPurge: (branchId) => void purgeBranch(branchId),
              }
            : null
        }
      />
      {context !== null && transcript.data ? (
        <Transcript
          data={transcript.data}
          context={context}
          onRetry={(text) => void send(text)}
          onRestoreCheckpoint={(turnId) => openSheet(turnId, 'before_turn')}
          onSwitchBranch={(branchId) => void switchBranch(branchId)}
        />
      ) : (
        <div className="transcript" data-testid="transcript">
          {transcript.failure !== null ? (
            <div className="chat-empty">
              <ErrorLine
                className="chat-error"
                message={t('chat.loadFailed', { message: failureMessage(transcript.failure, t) })}
              />
              <button type="button" onClick={transcript.reload}>
                {t('explorer.retry')}
              </button>
            </div>
          ) : (
            <p className="chat-empty">
              {transcript.loading || !sessions.loaded ? t('explorer.loading') : t('chat.empty')}
            </p>
          )}
        </div>
      )}
      {transcript.data && sessionId !== null && (
        <AlignmentBanner
          projectId={props.projectId}
          sessionId={sessionId}
          alignment={transcript.data.session.alignment}
          rootNodeId={transcript.data.session.root_node_id}
          nodes={transcript.data.nodes}
          onChanged={() => {
            failure.clear()
            transcript.reload()
          }}
          onRestore={() => setSheet({ turnId: '', boundary: 'after_turn', prompt: '', branchCode: true })}
        />
      )}
      {restoreDone !== null && restoreDone.sessionId === sessionId && (
        <RestoreNote
          done={restoreDone}
          onOpposite={() => void command(restoreDone.kind === 'undone' ? '/redo' : '/undo')}
          onDismiss={() => setRestoreDone(null)}
        />
      )}
      <Composer
        handle={composer}
        status={commandStatus}
        onRewindPicker={sessionId === null ? undefined : () => setPicker(true)}
        picker={
          picker ? (
            <RewindPicker
              prompts={prompts.map(({ prompt, turn }) => ({
                turnId: turn.node_id,
                text: prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
              }))}
              onPick={(chosen) => openSheet(chosen.turnId, 'before_turn')}
              onClose={() => {
                setPicker(false)
                // After the picker is gone from the box's surroundings.
                requestAnimationFrame(() => composer.current?.focus())
              }}
            />
          ) : undefined
        }
        running={running}
        blocked={blocked}
        error={failure.messageFor(sessionId)}
        onSend={send}
        onStop={stop}
        onCommand={(name) => void command(name)}
        onOpenSettings={() => setSettingsOpen(true)}
        onUnarchive={() => {
          if (sessionId !== null) void sessions.update(sessionId, { archived: false })
        }}
      />
      {sheet !== null && sessionId !== null && (
        <RewindSheet
          key={sheet.branchCode ? 'branch-code' : `${sheet.turnId}:${sheet.boundary}`}
          projectId={props.projectId}
          sessionId={sessionId}
          target={sheet}
          onClose={() => setSheet(null)}
          onOpenFile={props.onOpenFile}
          onApplied={(result) => {
            setSheet(null)
            if (result.prompt_text) composer.current?.replaceText(result.prompt_text)
            transcript.reload()
          }}
        />
      )}
      {forkFrom !== null && sessionId !== null && (
        <ForkDialog
          projectId={props.projectId}
          sessionId={sessionId}
          nodeId={forkFrom}
          isGit={props.isGit === true}
          onClose={() => setForkFrom(null)}
          onForked={(forked) => {
            setForkFrom(null)
            if (forked.worktree && props.onSwitchProject) props.onSwitchProject(forked.worktree.project_id)
            else {
              sessions.select(forked.session.session_id)
              void sessions.reload()
            }
          }}
        />
      )}
    </aside>
  )
}
