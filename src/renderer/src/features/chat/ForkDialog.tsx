import { useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { Dialog } from '../../ui/Dialog'
import { ErrorLine } from '../../ui/ErrorLine'
import { useAction } from '../../ui/use-action'

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
  const [withFiles, setWithFiles] = useState(props.isGit)
  const action = useAction()
  const working = action.busy

  async function fork() {
    const outcome = await action.run((signal) =>
      client.request(
        'session.fork',
        { session_id: props.sessionId, node_id: props.nodeId, with_files: props.isGit && withFiles },
        { owner: { project_id: props.projectId }, timeoutMs: 180_000, signal },
      ),
    )
    if (outcome.kind === 'ok') props.onForked(outcome.result)
  }

  return (
    <Dialog
      title={t('fork.title')}
      onClose={props.onClose}
      dismissible={!working}
      backdropClassName="sheet-backdrop"
      className="rewind-sheet fork-dialog"
      headerClassName="rewind-header"
      initialFocus="input, button"
      testId="fork-dialog"
    >
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
        <ErrorLine message={action.error} />
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
    </Dialog>
  )
}
