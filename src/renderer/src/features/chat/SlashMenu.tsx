import { useI18n } from '../../i18n'
import type { SlashCommand } from './slash-commands'

/** The commands matching what is typed after "/"; the highlighted one runs on Enter. */
export function SlashMenu(props: {
  id: string
  commands: readonly SlashCommand[]
  highlighted: number
  onRun: (command: SlashCommand) => void
}) {
  const { t } = useI18n()
  return (
    <ul
      className="slash-menu"
      id={props.id}
      role="listbox"
      aria-label={t('composer.commands')}
      data-testid="slash-menu"
    >
      {props.commands.map((command, index) => (
        <li
          key={command.name}
          id={`${props.id}-${index}`}
          role="option"
          aria-selected={index === props.highlighted}
          aria-disabled={!command.available}
          className={index === props.highlighted ? 'slash-item highlighted' : 'slash-item'}
          data-command={command.name}
          onMouseDown={(event) => {
            // Keeps the focus in the textarea.
            event.preventDefault()
            if (command.available) props.onRun(command)
          }}
        >
          <code>{command.name}</code>
          <span className="slash-hint">{t(command.hint)}</span>
        </li>
      ))}
    </ul>
  )
}
