import { useId, useImperativeHandle, useRef, useState, type KeyboardEvent, type ReactNode, type Ref } from 'react'
import { useI18n } from '../../i18n'
import { SlashMenu } from './SlashMenu'
import { ErrorLine } from '../../ui/ErrorLine'
import { matchingCommands, nextEnabled, type SlashCommand } from './slash-commands'

/** Why sending is off even with text typed; commands such as /new still work. */
export type SendBlock = 'no-model' | 'archived' | null

/** Two Escapes this close together on an empty message box open the rewind picker. */
const DOUBLE_ESCAPE_MS = 800

/** What the chat pane may ask of the box besides its props. */
export interface ComposerHandle {
  focus(): void
  /** Puts text back into the box in place of what is typed (a prompt after /undo or a rewind). */
  replaceText(text: string): void
}

/**
 * Multiline prompt: Enter sends, Shift+Enter is a new line (and Enter while an input method is
 * composing is left to it); while a turn runs, Stop replaces Send; "/" lists commands; Esc Esc on
 * an empty box opens the rewind picker (`/rewind`).
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
  onRewindPicker?: () => void
  /** The rewind picker, shown above the box while open. */
  picker?: ReactNode
  /** A command in progress (/undo, /redo), said next to the buttons. */
  status?: string | null
  /** Moves the focus into the box (after the picker closes, or from the window's Focus Chat). */
  handle?: Ref<ComposerHandle>
}) {
  const { t } = useI18n()
  const menuId = useId()
  const [text, setText] = useState('')
  const box = useRef<HTMLTextAreaElement>(null)
  const lastEscape = useRef(0)
  useImperativeHandle(
    props.handle,
    () => ({ focus: () => box.current?.focus(), replaceText: (next: string) => setText(next) }),
    [],
  )
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
    if (event.key === 'Escape' && text === '' && props.onRewindPicker) {
      const now = event.timeStamp
      if (now - lastEscape.current < DOUBLE_ESCAPE_MS) {
        event.preventDefault()
        lastEscape.current = 0
        props.onRewindPicker()
      } else lastEscape.current = now
      return
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
        {props.picker}
        <textarea
          ref={box}
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
          <span className="composer-hint" role={props.status ? 'status' : undefined}>
            {props.status ?? t('composer.hint')}
          </span>
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
      <ErrorLine message={props.error} testId="composer-error" />
    </div>
  )
}
