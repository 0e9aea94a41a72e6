import { useEffect, useRef } from 'react'
import { useI18n } from '../../i18n'
import type { CommandRegistry } from '../../ui/commands'
import { useStore } from '../../ui/store'
import { displayChord } from './keys'

/** Keys that belong to a widget rather than the window, listed so nothing is undiscoverable. */
const WIDGET_KEYS = [
  ['shortcuts.treeMove', '↑ ↓ ← → Home End'],
  ['shortcuts.treeOpen', 'Enter'],
  ['shortcuts.treePin', 'Shift+Enter'],
  ['shortcuts.tabsMove', '← → Home End'],
  ['shortcuts.tabClose', 'Delete'],
  ['shortcuts.separator', '← → Home End'],
  ['shortcuts.send', 'Enter'],
  ['shortcuts.newline', 'Shift+Enter'],
  ['shortcuts.close', 'Escape'],
] as const

/** Every shortcut of the window, from the same command registry the keyboard handler uses. */
export function ShortcutsHelp(props: { commands: CommandRegistry; onClose: () => void }) {
  const { t } = useI18n()
  const commands = useStore(props.commands.store)
  const dialog = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const returnFocus = document.activeElement
    dialog.current?.querySelector<HTMLElement>('button')?.focus()
    return () => {
      if (returnFocus instanceof HTMLElement) returnFocus.focus()
    }
  }, [])
  return (
    <div
      className="palette-backdrop"
      onPointerDown={(event) => event.target === event.currentTarget && props.onClose()}
    >
      <div
        ref={dialog}
        className="shortcuts"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-help"
        onKeyDown={(event) => {
          if (event.key === 'Escape') props.onClose()
        }}
      >
        <header className="shortcuts-header">
          <h2 id="shortcuts-title">{t('command.shortcuts')}</h2>
          <button type="button" onClick={props.onClose}>
            {t('turnCard.close')}
          </button>
        </header>
        <table className="shortcuts-table">
          <tbody>
            {commands
              .map((command) => ({ command, keys: command.keybindings ?? [] }))
              .filter(({ keys }) => keys.length > 0)
              .map(({ command, keys }) => (
                <tr key={command.id}>
                  <td>{t(command.title)}</td>
                  <td>
                    {keys.map((chord) => (
                      <kbd key={chord}>{displayChord(chord)}</kbd>
                    ))}
                  </td>
                </tr>
              ))}
            {WIDGET_KEYS.map(([label, keys]) => (
              <tr key={label}>
                <td>{t(label)}</td>
                <td>
                  <kbd>{keys}</kbd>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="palette-note">{t('shortcuts.browserNote')}</p>
      </div>
    </div>
  )
}
