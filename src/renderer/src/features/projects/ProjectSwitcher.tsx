import { useEffect, useRef, useState, type FormEvent } from 'react'
import type { ProjectSummary } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { openFolderRequests } from './commands'
import { ErrorLine } from '../../ui/ErrorLine'
import { useAction } from '../../ui/use-action'
import { useListNavigation } from '../../ui/use-list-navigation'
import './projects.css'

export interface ProjectSwitcherHandle {
  openFolder(): void
}

/**
 * The title bar's project switcher: the current project, recent ones, and "Open folder…" — the
 * native folder dialog in the desktop app, a path box with the recent folders in browser mode.
 */
export function ProjectSwitcher(props: {
  projects: readonly ProjectSummary[]
  currentId: string | null
  canPickFolder: boolean
  onSelect: (projectId: string) => void
  onOpened: (project: ProjectSummary) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const [open, setOpen] = useState(false)
  const [pathBox, setPathBox] = useState(false)
  const [path, setPath] = useState('')
  const action = useAction()
  const moveInList = useListNavigation('.project-option')
  const button = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLDivElement>(null)
  const current = props.projects.find((p) => p.project_id === props.currentId) ?? null

  const pick = async () => {
    const outcome = await action.run(
      (signal) => client.request('project.pick', {}, { timeoutMs: 24 * 60 * 60 * 1000, signal }),
      { frame: 'project.openFailed' },
    )
    if (outcome.kind === 'ok' && outcome.result.kind === 'opened') {
      props.onOpened(outcome.result.project)
      setOpen(false)
    }
  }
  const openFolder = () => {
    if (props.canPickFolder) void pick()
    else {
      setOpen(true)
      setPathBox(true)
    }
  }
  // The "Open folder…" command (menu, palette) asks whichever switcher is mounted.
  const openFolderNow = useRef(openFolder)
  useEffect(() => {
    openFolderNow.current = openFolder
  })
  useEffect(() => openFolderRequests.listen(() => openFolderNow.current()), [])
  useEffect(() => {
    if (!open) return
    const onPointer = (event: PointerEvent) => {
      if (!panel.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node))
        setOpen(false)
    }
    document.addEventListener('pointerdown', onPointer)
    return () => document.removeEventListener('pointerdown', onPointer)
  }, [open])

  const openByPath = async (event: FormEvent) => {
    event.preventDefault()
    if (path.trim() === '') return
    const outcome = await action.run((signal) => client.request('project.open', { path: path.trim() }, { signal }), {
      frame: 'project.openFailed',
    })
    if (outcome.kind === 'ok') {
      setPath('')
      setOpen(false)
      setPathBox(false)
      props.onOpened(outcome.result)
    }
  }
  const close = () => {
    setOpen(false)
    button.current?.focus()
  }

  return (
    <div className="project-switcher">
      <button
        ref={button}
        type="button"
        className="project-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={t('project.switcherLabel', { name: current?.name ?? t('project.noneShort') })}
        title={current?.root}
        onClick={() => setOpen((o) => !o)}
        data-testid="project-switcher"
      >
        <Icon name="root-folder" />
        <span className="project-name">{current?.name ?? t('project.noneShort')}</span>
        <Icon name="chevron-down" />
      </button>
      {open && (
        <div
          ref={panel}
          className="project-panel"
          role="dialog"
          aria-label={t('project.switch')}
          onKeyDown={(event) => {
            if (event.key === 'Escape') close()
          }}
        >
          <p className="project-panel-title">{t('project.recent')}</p>
          {/* ↑/↓/Home/End move between the recent projects. */}
          <ul className="project-list" onKeyDown={moveInList}>
            {props.projects.map((project) => (
              <li key={project.project_id}>
                <button
                  type="button"
                  className="project-option"
                  aria-current={project.project_id === props.currentId}
                  autoFocus={project.project_id === props.currentId}
                  onClick={() => {
                    props.onSelect(project.project_id)
                    setOpen(false)
                  }}
                  data-testid="project-option"
                  data-project-id={project.project_id}
                >
                  <span className="project-option-name">{project.name}</span>
                  <span className="project-option-root">{project.root}</span>
                </button>
              </li>
            ))}
          </ul>
          {props.canPickFolder && (
            <button type="button" onClick={() => void pick()} data-testid="project-pick">
              <Icon name="folder-opened" /> {t('project.pick')}
            </button>
          )}
          {(!props.canPickFolder || pathBox) && (
            <form className="open-by-path" onSubmit={(event) => void openByPath(event)}>
              <label className="field">
                <span className="field-label">{t('project.openByPath')}</span>
                <input
                  type="text"
                  value={path}
                  list="recent-folders"
                  autoFocus={pathBox}
                  spellCheck={false}
                  placeholder={t('project.pathPlaceholder')}
                  onChange={(event) => setPath(event.target.value)}
                  data-testid="open-path-input"
                />
              </label>
              <datalist id="recent-folders">
                {props.projects.map((project) => (
                  <option key={project.project_id} value={project.root} />
                ))}
              </datalist>
              <button type="submit">{t('project.open')}</button>
            </form>
          )}
          <ErrorLine message={action.error} />
        </div>
      )}
    </div>
  )
}
