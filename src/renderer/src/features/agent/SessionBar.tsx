import { useState } from 'react'
import type { PermissionMode } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import type { Session } from './use-chat'

/** Session picker, New, rename, archive, the permission mode, and the way to Settings. */
export function SessionBar(props: {
  projectId: string
  sessions: readonly Session[]
  current: Session | null
  onSelect: (sessionId: string) => void
  onChanged: (sessionId?: string) => void
  onOpenSettings: () => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const owner = { project_id: props.projectId }
  const [renaming, setRenaming] = useState<string | null>(null)
  const current = props.current

  async function create() {
    const outcome = await client.request('session.create', {}, { owner })
    if (outcome.kind === 'ok') props.onChanged(outcome.result.session_id)
  }
  async function update(changes: { title?: string; archived?: boolean; permission_mode?: PermissionMode }) {
    if (!current) return
    await client.request('session.update', { session_id: current.session_id, ...changes }, { owner })
    props.onChanged()
  }

  return (
    <div className="session-bar">
      <div className="session-row">
        {renaming !== null && current ? (
          <form
            className="session-rename"
            onSubmit={(event) => {
              event.preventDefault()
              const title = renaming.trim()
              setRenaming(null)
              if (title !== '') void update({ title })
            }}
          >
            <input
              aria-label={t('chat.renameLabel')}
              value={renaming}
              autoFocus
              onChange={(event) => setRenaming(event.target.value)}
              onKeyDown={(event) => event.key === 'Escape' && setRenaming(null)}
            />
          </form>
        ) : (
          <select
            aria-label={t('chat.session')}
            value={current?.session_id ?? ''}
            onChange={(event) => props.onSelect(event.target.value)}
            disabled={props.sessions.length === 0}
          >
            {props.sessions.length === 0 && <option value="">{t('chat.noSessions')}</option>}
            {props.sessions.map((session) => (
              <option key={session.session_id} value={session.session_id}>
                {session.title}
              </option>
            ))}
          </select>
        )}
        <button type="button" data-testid="session-new" onClick={() => void create()}>
          {t('chat.newSession')}
        </button>
        <button type="button" data-testid="settings-open" onClick={props.onOpenSettings} title={t('settings.title')}>
          {t('settings.open')}
        </button>
      </div>
      {current && (
        <div className="session-row session-row-secondary">
          <label className="session-mode">
            <span>{t('chat.mode')}</span>
            <select
              value={current.permission_mode}
              onChange={(event) => void update({ permission_mode: event.target.value as PermissionMode })}
            >
              <option value="ask">{t('chat.modeAsk')}</option>
              <option value="accept-edits">{t('chat.modeAcceptEdits')}</option>
              <option value="auto">{t('chat.modeAuto')}</option>
            </select>
          </label>
          <button type="button" className="link-button" onClick={() => setRenaming(current.title)}>
            {t('chat.rename')}
          </button>
          <button
            type="button"
            className="link-button"
            disabled={current.running_turn_id !== null}
            onClick={() => void update({ archived: true })}
          >
            {t('chat.archive')}
          </button>
        </div>
      )}
    </div>
  )
}
