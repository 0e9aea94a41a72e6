import { useI18n } from '../../i18n'
import { Dialog } from '../../ui/Dialog'
import { COMMANDS } from './commands'
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

/** Every shortcut of the window, from the same command table the keyboard handler uses. */
export function ShortcutsHelp(props: { onClose: () => void }) {
  const { t } = useI18n()
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
          {COMMANDS.filter((command) => command.keys.length > 0).map((command) => (
            <tr key={command.id}>
              <td>{t(command.title)}</td>
              <td>
                {command.keys.map((chord) => (
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
