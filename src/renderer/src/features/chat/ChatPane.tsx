import './chat.css'
import { useEffect, useState } from 'react'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { SettingsPanel, useProviders } from '../settings'
import type { TurnContext } from './AssistantTurn'
import { Composer, type SendBlock } from './Composer'
import { SessionBar } from './SessionBar'
import type { SlashCommandName } from './slash-commands'
import { Transcript } from './Transcript'
import { useSessions } from './use-session'
import { useTranscript } from './use-transcript'

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
  /** Bumped by the window's menu to open Settings here. */
  settingsRequest?: number
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
  // The window's menu asks for Settings by bumping a counter (React's "adjust state on a prop change").
  const [seenSettingsRequest, setSeenSettingsRequest] = useState(props.settingsRequest ?? 0)
  if ((props.settingsRequest ?? 0) !== seenSettingsRequest) {
    setSeenSettingsRequest(props.settingsRequest ?? 0)
    setSettingsOpen(true)
  }
  const [error, setError] = useState<{ sessionId: string | null; message: string } | null>(null)
  const owner = { project_id: props.projectId }
  // The transcript's copy of the session is read after every turn event, so it is the fresher one.
  const session = transcript.data?.session ?? current
  const running = (session?.running_turn_id ?? null) !== null
  const blocked: SendBlock =
    providers.hasActiveProvider === false ? 'no-model' : session?.state === 'archived' ? 'archived' : null

  async function send(text: string): Promise<boolean> {
    setError(null)
    let target = sessionId
    if (target === null) {
      const created = await sessions.create(titleFrom(text))
      if (created.kind !== 'ok') {
        if (created.kind !== 'cancelled') setError({ sessionId: null, message: failureMessage(created, t) })
        return false
      }
      target = created.result.session_id
    }
    const outcome = await client.request('session.prompt', { session_id: target, text }, { owner })
    if (outcome.kind === 'ok') {
      transcript.reload()
      return true
    }
    if (outcome.kind === 'error' && outcome.error.details?.reason === 'no-model') void providers.reload()
    if (outcome.kind !== 'cancelled') setError({ sessionId: target, message: failureMessage(outcome, t) })
    return false
  }
  async function stop() {
    if (sessionId === null) return
    const outcome = await client.request(
      'session.abort',
      { session_id: sessionId },
      { owner, timeoutMs: ABORT_TIMEOUT_MS },
    )
    if (outcome.kind !== 'ok' && outcome.kind !== 'cancelled')
      setError({ sessionId, message: failureMessage(outcome, t) })
    transcript.reload()
  }
  async function command(name: SlashCommandName) {
    if (name !== '/new') return
    const created = await sessions.create()
    if (created.kind !== 'ok' && created.kind !== 'cancelled') {
      setError({ sessionId, message: failureMessage(created, t) })
    }
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
          setError(null)
          sessions.select(id)
        }}
        onCreate={() => sessions.create()}
        onUpdate={sessions.update}
        onOpenSettings={() => setSettingsOpen(true)}
      />
      {context !== null && transcript.data ? (
        <Transcript data={transcript.data} context={context} onRetry={(text) => void send(text)} />
      ) : (
        <div className="transcript" data-testid="transcript">
          {transcript.failure !== null ? (
            <div className="chat-empty" role="alert">
              <p className="chat-error">{t('chat.loadFailed', { message: failureMessage(transcript.failure, t) })}</p>
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
      <Composer
        running={running}
        blocked={blocked}
        error={error !== null && error.sessionId === sessionId ? error.message : null}
        onSend={send}
        onStop={stop}
        onCommand={(name) => void command(name)}
        onOpenSettings={() => setSettingsOpen(true)}
        onUnarchive={() => {
          if (sessionId !== null) void sessions.update(sessionId, { archived: false })
        }}
      />
    </aside>
  )
}
