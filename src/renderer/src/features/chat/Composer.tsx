import { useId, useState, type KeyboardEvent } from 'react'
import { useI18n } from '../../i18n'
import { SlashMenu } from './SlashMenu'
import { matchingCommands, nextEnabled, type SlashCommand } from './slash-commands'

/** Why sending is off even with text typed; commands such as /new still work. */
export type SendBlock = 'no-model' | 'archived' | null

/**
 * Multiline prompt: Enter sends, Shift+Enter is a new line (and Enter while an input method is
 * composing is left to it); while a turn runs, Stop replaces Send; "/" lists commands.
 */
export function Composer(props: {
  running: boolean
  blocked: SendBlock
  error: string | null
  onSend: (text: string) => Promise<boolean>
  onStop: () => Promise<void>
  onCommand: (command: SlashCommand['name']) => void
  onOpenSettings: () => void
  onUnarchive: () => void
}) {
  const { t } = useI18n()
  const menuId = useId()
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [stopping, setStopping] = useState(false)
  const [highlighted, setHighlighted] = useState(0)
  const [menuClosed, setMenuClosed] = useState(false)
  const commands = menuClosed ? [] : matchingCommands(text)
  const canSend = text.trim() !== '' && !props.running && props.blocked === null && !sending

  function edit(next: string) {
    setText(next)
    setMenuClosed(false)
    setHighlighted(Math.max(0, nextEnabled(matchingCommands(next), -1, 1)))
  }
  function run(command: SlashCommand) {
    edit('')
    props.onCommand(command.name)
  }
  async function send() {
    if (!canSend) return
    setSending(true)
    const sent = await props.onSend(text.trim())
    setSending(false)
    if (sent) edit('')
  }
  async function stop() {
    setStopping(true)
    await props.onStop()
    setStopping(false)
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.nativeEvent.isComposing) return
    if (commands.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault()
        const next = nextEnabled(commands, highlighted, event.key === 'ArrowDown' ? 1 : -1)
        if (next >= 0) setHighlighted(next)
        return
      }
      if (event.key === 'Escape') {
        event.preventDefault()
        setMenuClosed(true)
        return
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        const command = commands[highlighted]
        event.preventDefault()
        if (command?.available) run(command)
        return
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault()
      void send()
    }
  }

  return (
    <div className="composer">
      {props.blocked === 'no-model' && (
        <div className="composer-setup" data-testid="composer-no-model">
          <p>{t('composer.noModel')}</p>
          <button type="button" onClick={props.onOpenSettings}>
            {t('composer.connect')}
          </button>
        </div>
      )}
      {props.blocked === 'archived' && (
        <div className="composer-setup">
          <p>{t('composer.archived')}</p>
          <button type="button" onClick={props.onUnarchive}>
            {t('chat.unarchive')}
          </button>
        </div>
      )}
      <div className="composer-box">
        {commands.length > 0 && <SlashMenu id={menuId} commands={commands} highlighted={highlighted} onRun={run} />}
        <textarea
          aria-label={t('composer.label')}
          placeholder={t('composer.placeholder')}
          value={text}
          rows={3}
          aria-controls={commands.length > 0 ? menuId : undefined}
          aria-activedescendant={commands.length > 0 ? `${menuId}-${highlighted}` : undefined}
          onChange={(event) => edit(event.target.value)}
          onKeyDown={onKeyDown}
          data-testid="composer-input"
        />
        <div className="composer-actions">
          <span className="composer-hint">{t('composer.hint')}</span>
          {props.running ? (
            <button
              type="button"
              className="danger"
              disabled={stopping}
              onClick={() => void stop()}
              data-testid="composer-stop"
            >
              {t('composer.stop')}
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              disabled={!canSend}
              title={props.blocked === 'no-model' ? t('composer.noModelShort') : undefined}
              onClick={() => void send()}
              data-testid="composer-send"
            >
              {t('composer.send')}
            </button>
          )}
        </div>
      </div>
      {props.error !== null && (
        <p className="chat-error" role="alert" data-testid="composer-error">
          {props.error}
        </p>
      )}
    </div>
  )
}
