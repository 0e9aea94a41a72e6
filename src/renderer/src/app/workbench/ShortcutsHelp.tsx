import { useI18n } from '../../i18n'
import type { CommandRegistry } from '../../ui/commands'
import { Dialog } from '../../ui/Dialog'
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
  return (
    <Dialog
      title={t('command.shortcuts')}
      onClose={props.onClose}
      backdropClassName="palette-backdrop"
      className="shortcuts"
      headerClassName="shortcuts-header"
      testId="shortcuts-help"
      actions={
        <button type="button" onClick={props.onClose}>
          {t('turnCard.close')}
        </button>
      }
    >
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
    </Dialog>
  )
}
