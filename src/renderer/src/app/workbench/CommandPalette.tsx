import { Command } from 'cmdk'
import { useEffect, useMemo, useRef, useState } from 'react'
import { baseName, parentPath } from '../../../../shared/paths'
import { useI18n } from '../../i18n'
import type { RequestClient } from '../../transport'
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
 * switches. ↑/↓ move, Enter runs or opens, Escape closes and gives focus back.
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
  const returnFocus = useRef<Element | null>(document.activeElement)
  const mode = value.startsWith('>') ? 'commands' : 'files'
  const search = mode === 'commands' ? value.slice(1) : value

  // Quick open asks the engine's project search (the whole project, .gitignore honoured).
  const found = useProjectSearch(props.client, mode === 'files' ? props.projectId : null, search, 'files')
  // While the answer to the newest keystroke travels, the previous results stay listed: the list
  // never blinks empty between keystrokes, and Enter opens what the person sees selected.
  const index =
    found.state.kind === 'ready' ? found.state : found.state.kind === 'searching' ? found.state.previous : null
  useEffect(
    () => () => {
      if (returnFocus.current instanceof HTMLElement) returnFocus.current.focus()
    },
    [],
  )

  const commands = useMemo(() => {
    const byTitle = new Map(props.commands.map((c) => [c.title, c]))
    return matchFiles([...byTitle.keys()], search, 100).map((title) => byTitle.get(title) as PaletteCommand)
  }, [props.commands, search])
  const files = useMemo(() => (index ? index.entries.slice(0, 50).map((entry) => entry.path) : []), [index])
  const close = () => props.onClose()

  return (
    <div className="palette-backdrop" onPointerDown={(event) => event.target === event.currentTarget && close()}>
      <div
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label={mode === 'commands' ? t('command.palette') : t('command.quickOpen')}
        data-testid="palette"
        data-mode={mode}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault()
            close()
          }
        }}
      >
        <Command shouldFilter={false} loop label={mode === 'commands' ? t('command.palette') : t('command.quickOpen')}>
          <div className="palette-input">
            <Icon name={mode === 'commands' ? 'terminal-cmd' : 'search'} />
            <Command.Input
              autoFocus
              value={value}
              onValueChange={setValue}
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
                      onSelect={() => {
                        close()
                        requestAnimationFrame(() => props.onOpenFile(path))
                      }}
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
      </div>
    </div>
  )
}
