import { useState, type KeyboardEvent } from 'react'
import { useI18n } from '../../i18n'

interface SlashCommand {
  readonly name: string
  readonly available: boolean
  readonly hint: string
}

/** Multiline prompt: Enter sends, Shift+Enter is a newline; Stop while a turn runs; "/" opens commands. */
export function Composer(props: {
  running: boolean
  hasModel: boolean
  error: string | null
  onSend: (text: string) => Promise<boolean>
  onStop: () => void
  onNewSession: () => void
  onOpenSettings: () => void
}) {
  const { t } = useI18n()
  const [text, setText] = useState('')
  const commands: SlashCommand[] = [
    { name: '/new', available: true, hint: t('composer.cmdNew') },
    { name: '/undo', available: false, hint: t('composer.cmdLater') },
    { name: '/redo', available: false, hint: t('composer.cmdLater') },
  ]
  const menu =
    text.startsWith('/') && !text.includes('\n') ? commands.filter((c) => c.name.startsWith(text.trim())) : []

  async function send() {
    const trimmed = text.trim()
    if (trimmed === '' || props.running || !props.hasModel) return
    if (trimmed === '/new') {
      setText('')
      props.onNewSession()
      return
    }
    if (await props.onSend(trimmed)) setText('')
  }
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      void send()
    }
  }

  if (!props.hasModel) {
    return (
      <div className="composer composer-no-model">
        <p>{t('composer.noModel')}</p>
        <button type="button" onClick={props.onOpenSettings}>
          {t('settings.open')}
        </button>
      </div>
    )
  }
  return (
    <div className="composer">
      {menu.length > 0 && (
        <ul className="slash-menu" role="listbox" aria-label={t('composer.commands')}>
          {menu.map((command) => (
            <li key={command.name} role="option" aria-selected="false" aria-disabled={!command.available}>
              <button type="button" disabled={!command.available} onClick={() => setText(command.name)}>
                <code>{command.name}</code> <span>{command.hint}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <textarea
        data-testid="composer-input"
        aria-label={t('composer.label')}
        placeholder={t('composer.placeholder')}
        value={text}
        rows={3}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {props.error && (
          <span className="composer-error" role="alert">
            {props.error}
          </span>
        )}
        {props.running ? (
          <button type="button" data-testid="composer-stop" onClick={props.onStop}>
            {t('composer.stop')}
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            data-testid="composer-send"
            disabled={text.trim() === ''}
            onClick={() => void send()}
          >
            {t('composer.send')}
          </button>
        )}
      </div>
    </div>
  )
}
