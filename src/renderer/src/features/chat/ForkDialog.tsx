import { useEffect, useId, useRef, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'

type Forked = ResultOf<'session.fork'>

/**
 * "Fork to new task" (spec 04): a new session with the conversation up to this turn; this one is
 * not changed. "With files" is offered only in a git project: a worktree at this checkpoint,
 * opened as its own project, where the new session lives.
 */
export function ForkDialog(props: {
  projectId: string
  sessionId: string
  nodeId: string
  isGit: boolean
  onClose: () => void
  onForked: (forked: Forked) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const titleId = useId()
  const dialog = useRef<HTMLDivElement>(null)
  const [withFiles, setWithFiles] = useState(props.isGit)
  const [working, setWorking] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    const returnFocus = document.activeElement
    dialog.current?.querySelector<HTMLElement>('input, button')?.focus()
    return () => {
      if (returnFocus instanceof HTMLElement) returnFocus.focus()
    }
  }, [])

  async function fork() {
    setWorking(true)
    setError(null)
    const outcome = await client.request(
      'session.fork',
      { session_id: props.sessionId, node_id: props.nodeId, with_files: props.isGit && withFiles },
      { owner: { project_id: props.projectId }, timeoutMs: 180_000 },
    )
    setWorking(false)
    if (outcome.kind === 'ok') props.onForked(outcome.result)
    else if (outcome.kind !== 'cancelled') setError(failureMessage(outcome, t))
  }

  return (
    <div
      className="sheet-backdrop"
      onPointerDown={(event) => event.target === event.currentTarget && !working && props.onClose()}
    >
      <div
        ref={dialog}
        className="rewind-sheet fork-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="fork-dialog"
        onKeyDown={(event) => {
          if (event.key === 'Escape' && !working) {
            event.stopPropagation()
            props.onClose()
          }
        }}
      >
        <header className="rewind-header">
          <h2 id={titleId}>{t('fork.title')}</h2>
        </header>
        <div className="rewind-body">
          <p>{t('fork.lead')}</p>
          {props.isGit ? (
            <label className="restore-commands">
              <input
                type="checkbox"
                checked={withFiles}
                disabled={working}
                onChange={(event) => setWithFiles(event.target.checked)}
                data-testid="fork-with-files"
              />
              {t('fork.withFiles')}
            </label>
          ) : (
            <p className="rewind-note">{t('fork.notGit')}</p>
          )}
          {error !== null && (
            <p className="chat-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <footer className="rewind-buttons">
          <button
            type="button"
            className="primary"
            disabled={working}
            onClick={() => void fork()}
            data-testid="fork-confirm"
          >
            {working ? t('align.working') : t('fork.create')}
          </button>
          <button type="button" disabled={working} onClick={props.onClose}>
            {t('explorer.cancel')}
          </button>
        </footer>
      </div>
    </div>
  )
}
