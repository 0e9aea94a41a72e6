import { useState, type FormEvent } from 'react'
import type { ProjectSummary } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { LOCALES, useI18n, type Locale } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'

export function ProjectBar(props: {
  projects: readonly ProjectSummary[]
  currentId: string | null
  canPickFolder: boolean
  onSelect: (projectId: string) => void
  onOpened: (project: ProjectSummary) => void
}) {
  const client = useClient()
  const { t, locale, setLocale } = useI18n()
  const [path, setPath] = useState('')
  const [error, setError] = useState<string | null>(null)

  const openByPath = async (event: FormEvent) => {
    event.preventDefault()
    if (path.trim() === '') return
    setError(null)
    const outcome = await client.request('project.open', { path: path.trim() })
    if (outcome.kind === 'ok') {
      setPath('')
      props.onOpened(outcome.result)
    } else if (outcome.kind !== 'cancelled') {
      setError(t('project.openFailed', { message: failureMessage(outcome, t) }))
    }
  }

  const pick = async () => {
    setError(null)
    const outcome = await client.request('project.pick', {}, { timeoutMs: 24 * 60 * 60 * 1000 })
    if (outcome.kind === 'ok') {
      if (outcome.result.kind === 'opened') props.onOpened(outcome.result.project)
    } else if (outcome.kind !== 'cancelled') {
      setError(t('project.openFailed', { message: failureMessage(outcome, t) }))
    }
  }

  return (
    <header className="project-bar">
      <h1 className="brand">{t('app.title')}</h1>
      {props.projects.length > 0 && (
        <label className="field">
          <span className="field-label">{t('project.switch')}</span>
          <select
            value={props.currentId ?? ''}
            onChange={(event) => props.onSelect(event.target.value)}
            data-testid="project-select"
          >
            {props.projects.map((project) => (
              <option key={project.project_id} value={project.project_id} title={project.root}>
                {project.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {props.canPickFolder && (
        <button type="button" onClick={() => void pick()}>
          {t('project.pick')}
        </button>
      )}
      <form className="open-by-path" onSubmit={(event) => void openByPath(event)}>
        <label className="field">
          <span className="field-label">{t('project.openByPath')}</span>
          <input
            type="text"
            value={path}
            spellCheck={false}
            placeholder={t('project.pathPlaceholder')}
            onChange={(event) => setPath(event.target.value)}
            data-testid="open-path-input"
          />
        </label>
        <button type="submit">{t('project.open')}</button>
      </form>
      <label className="field language">
        <span className="field-label">{t('app.language')}</span>
        <select value={locale} onChange={(event) => setLocale(event.target.value as Locale)}>
          {LOCALES.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {error !== null && (
        <p className="bar-error" role="alert">
          {error}
        </p>
      )}
    </header>
  )
}
