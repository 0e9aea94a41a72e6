import { Command } from 'cmdk'
import { useEffect, useMemo, useRef, useState } from 'react'
import { baseName, parentPath } from '../../../../shared/paths'
import { useI18n } from '../../i18n'
import type { RequestClient } from '../../transport'
import { Dialog } from '../../ui/Dialog'
import { fileIcon } from '../../ui/file-icons'
import { Icon } from '../../ui/Icon'
import { useProjectSearch } from '../../ui/project-search'
import { matchFiles } from './file-index'
import './palette.css'

export interface PaletteCommand {
  readonly id: string
  readonly title: string
  readonly shortcut: string | null
  run(): void
}

/**
 * The command palette (`>` + command name) and quick open (a file name) in one dialog, as in VS
 * Code: Ctrl/Cmd+Shift+P opens it on commands, Ctrl/Cmd+P on files; typing or deleting `>`
 * switches. ↑/↓ move, Enter runs or opens, Escape closes and gives focus back (ui/Dialog: focus
 * trap, Escape, focus restored).
 */
export function CommandPalette(props: {
  client: RequestClient
  projectId: string | null
  initial: 'commands' | 'files'
  commands: readonly PaletteCommand[]
  onOpenFile: (path: string) => void
  onClose: () => void
}) {
  const { t } = useI18n()
  const [value, setValue] = useState(props.initial === 'commands' ? '>' : '')
  const mode = value.startsWith('>') ? 'commands' : 'files'
  const search = mode === 'commands' ? value.slice(1) : value

  // Quick open asks the engine's project search (the whole project, .gitignore honoured).
  const found = useProjectSearch(props.client, mode === 'files' ? props.projectId : null, search, 'files')
  // While the answer to the newest keystroke travels, the previous results stay listed: the list
  // never blinks empty between keystrokes.
  const index =
    found.state.kind === 'ready' ? found.state : found.state.kind === 'searching' ? found.state.previous : null

  const commands = useMemo(() => {
    const byTitle = new Map(props.commands.map((c) => [c.title, c]))
    return matchFiles([...byTitle.keys()], search, 100).map((title) => byTitle.get(title) as PaletteCommand)
  }, [props.commands, search])
  const files = useMemo(() => (index ? index.entries.slice(0, 50).map((entry) => entry.path) : []), [index])

  // The selection is ours, not cmdk's: cmdk picks the first row when the query changes, which is a
  // row of the previous answer while the new one travels, and then keeps that value after its row
  // is gone, so nothing was selected and Enter did nothing. A choice counts for the list it was
  // made on; any other list (a new answer, a new command filter) starts on its first row.
  const shownQuery = mode === 'commands' ? value : (index?.query ?? null)
  const values = mode === 'commands' ? commands.map((command) => command.id) : files
  const [picked, setPicked] = useState<{ readonly list: string | null; readonly value: string } | null>(null)
  const selected =
    picked !== null && picked.list === shownQuery && values.includes(picked.value) ? picked.value : (values[0] ?? '')

  // Enter while the rows on screen answer an older query (the newest is debouncing or travelling)
  // waits for the answer to what was typed and opens its first row: a person who types a name and
  // presses Enter means that name, not whatever the previous answer listed first. Moving through
  // the old rows with the arrows first is a choice of what is on screen, which Enter then opens.
  // The query a held Enter waits for; a ref, as only the answer's arrival acts on it.
  const pendingEnter = useRef<string | null>(null)
  const navigatedSinceTyping = useRef(false)
  const resultsAreStale = mode === 'files' && (found.state.kind !== 'ready' || found.state.query !== search)

  const close = () => props.onClose()
  const openFile = (path: string) => {
    close()
    // After the dialog is gone, so the editor can take the focus.
    requestAnimationFrame(() => props.onOpenFile(path))
  }
  const openFileOnAnswer = useRef(openFile)
  useEffect(() => {
    openFileOnAnswer.current = openFile
  })

  useEffect(() => {
    const state = found.state
    if (pendingEnter.current === null || pendingEnter.current !== search) return
    if ((state.kind !== 'ready' && state.kind !== 'error') || state.query !== search) return
    // An answer settles a held Enter: its first row opens; a failed or empty one leaves the
    // palette open on what it says.
    pendingEnter.current = null
    const first = state.kind === 'ready' ? state.entries[0] : undefined
    if (first) openFileOnAnswer.current(first.path)
  }, [found.state, search])

  // cmdk names the selected row to assistive technology (`aria-activedescendant` on the input
  // and the list) only when it moves the selection itself; a selection set from here is named here.
  const commandRoot = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const root = commandRoot.current
    if (!root) return
    const row = root.querySelector<HTMLElement>(`[cmdk-item][data-value="${CSS.escape(selected)}"]`)
    for (const element of root.querySelectorAll('[cmdk-input], [cmdk-list]')) {
      if (row) element.setAttribute('aria-activedescendant', row.id)
      else element.removeAttribute('aria-activedescendant')
    }
  })

  return (
    <Dialog
      title={null}
      label={mode === 'commands' ? t('command.palette') : t('command.quickOpen')}
      onClose={close}
      backdropClassName="palette-backdrop"
      className="palette"
      testId="palette"
      initialFocus="[cmdk-input]"
    >
      <Command
        ref={commandRoot}
        shouldFilter={false}
        loop
        label={mode === 'commands' ? t('command.palette') : t('command.quickOpen')}
        value={selected}
        onValueChange={(next) => setPicked({ list: shownQuery, value: next })}
        onKeyDown={(event) => {
          if (NAVIGATION_KEYS.has(event.key)) navigatedSinceTyping.current = true
          if (event.key !== 'Enter' || event.nativeEvent.isComposing) return
          if (!resultsAreStale || navigatedSinceTyping.current) return
          // cmdk skips a key whose default is prevented: the held Enter is ours to run.
          event.preventDefault()
          pendingEnter.current = search
        }}
      >
        <div className="palette-input">
          <Icon name={mode === 'commands' ? 'terminal-cmd' : 'search'} />
          <Command.Input
            value={value}
            onValueChange={(next) => {
              navigatedSinceTyping.current = false
              pendingEnter.current = null
              setValue(next)
            }}
            placeholder={mode === 'commands' ? t('palette.commandsPlaceholder') : t('palette.filesPlaceholder')}
            aria-label={mode === 'commands' ? t('palette.commandsPlaceholder') : t('palette.filesPlaceholder')}
            data-testid="palette-input"
          />
        </div>
        <Command.List className="palette-list" label={t('palette.results')}>
          {mode === 'files' && index === null && <Command.Loading>{t('palette.indexing')}</Command.Loading>}
          <Command.Empty>{mode === 'files' && index === null ? '' : t('palette.nothing')}</Command.Empty>
          {mode === 'commands'
            ? commands.map((command) => (
                <Command.Item
                  key={command.id}
                  value={command.id}
                  onSelect={() => {
                    close()
                    // After the dialog is gone, so the command can move focus where it wants.
                    requestAnimationFrame(() => command.run())
                  }}
                  className="palette-item"
                  data-testid="palette-item"
                >
                  <span className="palette-title">{command.title}</span>
                  {command.shortcut && <kbd>{command.shortcut}</kbd>}
                </Command.Item>
              ))
            : files.map((path) => {
                const icon = fileIcon(path)
                return (
                  <Command.Item
                    key={path}
                    value={path}
                    onSelect={() => openFile(path)}
                    className="palette-item"
                    data-testid="palette-item"
                    data-path={path}
                  >
                    <Icon name={icon.icon} className={icon.tint} />
                    <span className="palette-title">{baseName(path)}</span>
                    <span className="palette-detail">{parentPath(path)}</span>
                  </Command.Item>
                )
              })}
        </Command.List>
        {mode === 'files' && index?.truncated && <p className="palette-note">{t('search.partial')}</p>}
        <p className="palette-note">{mode === 'files' ? t('palette.filesHint') : t('palette.commandsHint')}</p>
      </Command>
    </Dialog>
  )
}

/** cmdk's keys that move the selection (Ctrl+N/P and Ctrl+J/K too, but a plain letter types). */
const NAVIGATION_KEYS = new Set(['ArrowDown', 'ArrowUp', 'Home', 'End'])
