import { useState } from 'react'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { SettingsPanel } from '../settings'
import { Composer } from './Composer'
import { SessionBar } from './SessionBar'
import { Transcript } from './Transcript'
import { useChat } from './use-chat'

/** The right-hand pane: sessions, the transcript with its turn cards, and the composer. */
export function ChatPane(props: { projectId: string }) {
  const client = useClient()
  const { t } = useI18n()
  const chat = useChat(props.projectId)
  const [settingsOpen, setSettingsOpen] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const current = chat.sessions.find((s) => s.session_id === chat.sessionId) ?? null
  const running = (chat.transcript?.session.running_turn_id ?? current?.running_turn_id ?? null) !== null

  async function newSession() {
    const outcome = await client.request('session.create', {}, { owner: chat.owner })
    if (outcome.kind !== 'ok') return null
    await chat.reloadSessions()
    chat.selectSession(outcome.result.session_id)
    return outcome.result.session_id
  }
  async function send(text: string): Promise<boolean> {
    setError(null)
    const sessionId = chat.sessionId ?? (await newSession())
    if (sessionId === null) return false
    const outcome = await client.request('session.prompt', { session_id: sessionId, text }, { owner: chat.owner })
    if (outcome.kind !== 'ok') {
      setError(failureMessage(outcome, t))
      return false
    }
    await chat.reloadTranscript()
    return true
  }
  async function stop() {
    if (chat.sessionId === null) return
    await client.request('session.abort', { session_id: chat.sessionId }, { owner: chat.owner, timeoutMs: 60_000 })
    void chat.reloadTranscript()
  }

  if (settingsOpen) {
    return (
      <aside className="chat" data-testid="chat">
        <SettingsPanel
          onClose={() => {
            setSettingsOpen(false)
            void chat.reloadProviders()
          }}
        />
      </aside>
    )
  }
  return (
    <aside className="chat" data-testid="chat" aria-label={t('chat.title')}>
      <SessionBar
        projectId={props.projectId}
        sessions={chat.sessions}
        current={current}
        onSelect={chat.selectSession}
        onChanged={(sessionId) => {
          void chat.reloadSessions().then(() => {
            if (sessionId) chat.selectSession(sessionId)
            void chat.reloadTranscript()
          })
        }}
        onOpenSettings={() => setSettingsOpen(true)}
      />
      {chat.transcript ? (
        <Transcript
          projectId={props.projectId}
          data={chat.transcript}
          onRetry={(text) => void send(text)}
          onChanged={() => void chat.reloadTranscript()}
        />
      ) : (
        <div className="transcript" data-testid="transcript">
          <p className="chat-empty">{t('chat.empty')}</p>
        </div>
      )}
      <Composer
        running={running}
        hasModel={chat.hasModel !== false}
        error={error}
        onSend={send}
        onStop={() => void stop()}
        onNewSession={() => void newSession()}
        onOpenSettings={() => setSettingsOpen(true)}
      />
    </aside>
  )
}
