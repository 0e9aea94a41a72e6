import { useState, type FormEvent } from 'react'
import { PermissionMode } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { failureMessage } from '../../ui/outcome-message'
import { BranchMenu } from './BranchMenu'
import { PlusIcon, SettingsIcon } from './icons'
import type { Branch, Session, SessionChanges } from '../session'
import { ErrorLine } from '../../ui/ErrorLine'

const MODE_LABEL: Record<PermissionMode, MessageKey> = {
  ask: 'chat.modeAsk',
  'accept-edits': 'chat.modeAcceptEdits',
  auto: 'chat.modeAuto',
}

/** Session picker, New, inline rename, archive, the session's permission mode and Settings. */
export function SessionBar(props: {
  sessions: readonly Session[]
  current: Session | null
  onSelect: (sessionId: string) => void
  onCreate: () => Promise<RequestOutcome<Session>>
  onUpdate: (sessionId: string, changes: SessionChanges) => Promise<RequestOutcome<Session>>
  onOpenSettings: () => void
  /** The current session's branches (from its transcript) and what to do with them. */
  branches?: {
    list: readonly Branch[]
    activeBranchId: string
    disabled: boolean
    onSwitch: (branchId: string) => void
    onArchive: (branchId: string, archived: boolean) => void
    onPurge: (branchId: string) => void
  } | null
}) {
  const { t } = useI18n()
  const [title, setTitle] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const { current } = props
  const active = props.sessions.filter((s) => s.state === 'active')
  const archived = props.sessions.filter((s) => s.state === 'archived')

  async function run(request: Promise<RequestOutcome<Session>>) {
    setError(null)
    const outcome = await request
    if (outcome.kind !== 'ok' && outcome.kind !== 'cancelled') setError(failureMessage(outcome, t))
    return outcome.kind === 'ok'
  }
  async function rename(event: FormEvent) {
    event.preventDefault()
    if (!current || title === null) return
    const trimmed = title.trim()
    if (trimmed === '' || trimmed === current.title) {
      setTitle(null)
      return
    }
    if (await run(props.onUpdate(current.session_id, { title: trimmed }))) setTitle(null)
  }

  return (
    <div className="session-bar">
      <div className="session-row">
        {title !== null && current ? (
          <form className="session-rename" onSubmit={(event) => void rename(event)}>
            <input
              autoFocus
              aria-label={t('chat.renameLabel')}
              value={title}
              maxLength={200}
              onChange={(event) => setTitle(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape') setTitle(null)
              }}
              data-testid="session-title-input"
            />
            <button type="submit">{t('chat.save')}</button>
            <button type="button" onClick={() => setTitle(null)}>
              {t('explorer.cancel')}
            </button>
          </form>
        ) : (
          <select
            className="session-select"
            aria-label={t('chat.session')}
            value={current?.session_id ?? ''}
            disabled={props.sessions.length === 0}
            onChange={(event) => props.onSelect(event.target.value)}
            data-testid="session-select"
          >
            {current === null && <option value="">{t('chat.noSessions')}</option>}
            {active.map((session) => (
              <option key={session.session_id} value={session.session_id}>
                {session.title}
              </option>
            ))}
            {archived.length > 0 && (
              <optgroup label={t('chat.archived')}>
                {archived.map((session) => (
                  <option key={session.session_id} value={session.session_id}>
                    {session.title}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        )}
        <button
          type="button"
          className="icon-button"
          title={t('chat.newSessionTitle')}
          onClick={() => void run(props.onCreate())}
          data-testid="session-new"
        >
          <PlusIcon />
          <span>{t('chat.newSession')}</span>
        </button>
        <button
          type="button"
          className="icon-button"
          title={t('settings.title')}
          aria-label={t('settings.open')}
          onClick={props.onOpenSettings}
          data-testid="settings-open"
        >
          <SettingsIcon />
        </button>
      </div>
      {current && props.branches && (
        <div className="session-row session-row-branch">
          <BranchMenu
            branches={props.branches.list}
            activeBranchId={props.branches.activeBranchId}
            disabled={props.branches.disabled}
            onSwitch={props.branches.onSwitch}
            onArchive={props.branches.onArchive}
            onPurge={props.branches.onPurge}
          />
        </div>
      )}
      {current && (
        <div className="session-row session-row-secondary">
          <label className="session-mode">
            <span>{t('chat.mode')}</span>
            <select
              value={current.permission_mode}
              onChange={(event) => {
                const mode = PermissionMode.safeParse(event.target.value)
                if (mode.success) void run(props.onUpdate(current.session_id, { permission_mode: mode.data }))
              }}
              data-testid="session-mode"
            >
              {PermissionMode.options.map((mode) => (
                <option key={mode} value={mode}>
                  {t(MODE_LABEL[mode])}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="link-button" onClick={() => setTitle(current.title)}>
            {t('chat.rename')}
          </button>
          {current.state === 'active' ? (
            <button
              type="button"
              className="link-button"
              disabled={current.running_turn_id !== null}
              title={current.running_turn_id !== null ? t('chat.archiveRunning') : undefined}
              onClick={() => void run(props.onUpdate(current.session_id, { archived: true }))}
              data-testid="session-archive"
            >
              {t('chat.archive')}
            </button>
          ) : (
            <button
              type="button"
              className="link-button"
              onClick={() => void run(props.onUpdate(current.session_id, { archived: false }))}
              data-testid="session-unarchive"
            >
              {t('chat.unarchive')}
            </button>
          )}
        </div>
      )}
      <ErrorLine message={error} />
    </div>
  )
}
