import { useEffect, useRef, useState, type FormEvent } from 'react'
import type { ProjectSummary } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { openFolderRequests } from './commands'
import { ErrorLine } from '../../ui/ErrorLine'
import { useAction } from '../../ui/use-action'
import { useListNavigation } from '../../ui/use-list-navigation'
import { usePopover } from '../../ui/use-popover'
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
  const [pathBox, setPathBox] = useState(false)
  // A popover, not a Dialog or a Menu (see usePopover): a quick pick from the title bar that holds
  // a form, and the rest of the window stays usable while it is open.
  const popover = usePopover({
    initialFocus: pathBox ? '.open-by-path input' : '.project-option[aria-current="true"]',
  })
  const [path, setPath] = useState('')
  const action = useAction()
  const moveInList = useListNavigation('.project-option')
  const current = props.projects.find((p) => p.project_id === props.currentId) ?? null

  const pick = async () => {
    const outcome = await action.run(
      (signal) => client.request('project.pick', {}, { timeoutMs: 24 * 60 * 60 * 1000, signal }),
      { frame: 'project.openFailed' },
    )
    if (outcome.kind === 'ok' && outcome.result.kind === 'opened') {
      props.onOpened(outcome.result.project)
      popover.close(false)
    }
  }
  const openFolder = () => {
    if (props.canPickFolder) void pick()
    else {
      popover.show()
      setPathBox(true)
    }
  }
  // The "Open folder…" command (menu, palette) asks whichever switcher is mounted.
  const openFolderNow = useRef(openFolder)
  useEffect(() => {
    openFolderNow.current = openFolder
  })
  useEffect(() => openFolderRequests.listen(() => openFolderNow.current()), [])

  const openByPath = async (event: FormEvent) => {
    event.preventDefault()
    if (path.trim() === '') return
    const outcome = await action.run((signal) => client.request('project.open', { path: path.trim() }, { signal }), {
      frame: 'project.openFailed',
    })
    if (outcome.kind === 'ok') {
      setPath('')
      popover.close(false)
      setPathBox(false)
      props.onOpened(outcome.result)
    }
  }
  return (
    <div className="project-switcher">
      <button
        {...popover.buttonProps}
        type="button"
        className="project-button"
        aria-haspopup="dialog"
        aria-label={t('project.switcherLabel', { name: current?.name ?? t('project.noneShort') })}
        title={current?.root}
        data-testid="project-switcher"
      >
        <Icon name="root-folder" />
        <span className="project-name">{current?.name ?? t('project.noneShort')}</span>
        <Icon name="chevron-down" />
      </button>
      {popover.open && (
        <div {...popover.panelProps} className="project-panel" role="dialog" aria-label={t('project.switch')}>
          <p className="project-panel-title">{t('project.recent')}</p>
          {/* ↑/↓/Home/End move between the recent projects. */}
          <ul className="project-list" onKeyDown={moveInList}>
            {props.projects.map((project) => (
              <li key={project.project_id}>
                <button
                  type="button"
                  className="project-option"
                  aria-current={project.project_id === props.currentId}
                  onClick={() => {
                    props.onSelect(project.project_id)
                    popover.close(false)
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
