import { Suspense, useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { formatBytes, useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { DiffView } from '../../ui/diff'

type ConflictDiffResult = ResultOf<'history.conflict_diff'>

/**
 * What changed in a path since the turn (the engine diffs the bytes the turn left against the
 * file now), so a blocked restore shows the person what stands in the way.
 */
export function ConflictDiff(props: {
  projectId: string
  sessionId: string
  path: string
  /** A single-turn restore: the turn and which side of it the file should hold. */
  turnId?: string
  expected?: 'after' | 'before'
  /** A multi-turn restore: the plan says what the file should hold. */
  planHash?: string
}) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<
    { kind: 'loading' } | { kind: 'ready'; diff: ConflictDiffResult } | { kind: 'failed'; message: string }
  >({ kind: 'loading' })
  const { projectId, sessionId, turnId, path, expected, planHash } = props
  useEffect(() => {
    const controller = new AbortController()
    void client
      .request(
        'history.conflict_diff',
        planHash !== undefined ? { plan_hash: planHash, path } : { turn_id: turnId, path, expected },
        { owner: { project_id: projectId, session_id: sessionId }, signal: controller.signal },
      )
      .then((outcome) => {
        if (controller.signal.aborted || outcome.kind === 'cancelled') return
        setState(
          outcome.kind === 'ok'
            ? { kind: 'ready', diff: outcome.result }
            : { kind: 'failed', message: failureMessage(outcome, t) },
        )
      })
    return () => controller.abort()
  }, [client, projectId, sessionId, turnId, path, expected, planHash, t])

  if (state.kind === 'loading') return <p className="conflict-note">{t('restore.diffLoading')}</p>
  if (state.kind === 'failed') return <p className="conflict-note">{state.message}</p>
  const { diff } = state
  if (diff.current_kind === 'absent') return <p className="conflict-note">{t('restore.diffDeleted')}</p>
  if (diff.expected_kind === 'absent') return <p className="conflict-note">{t('restore.diffCreated')}</p>
  if (diff.diff_state !== 'available') {
    return (
      <p className="conflict-note">
        {t(`restore.diffState.${diff.diff_state}`)}{' '}
        {t('restore.diffSizes', {
          before: formatBytes(diff.expected_size ?? 0),
          after: formatBytes(diff.current_size ?? 0),
        })}
      </p>
    )
  }
  return (
    <div className="conflict-diff" data-testid="conflict-diff" data-path={path}>
      <p className="conflict-caption">{t('restore.diffCaption')}</p>
      <Suspense fallback={<p className="conflict-note">{t('restore.diffLoading')}</p>}>
        <DiffView hunks={diff.hunks} layout="unified" compact />
      </Suspense>
      {diff.truncated && <p className="conflict-note">{t('restore.diffTruncated')}</p>}
    </div>
  )
}
