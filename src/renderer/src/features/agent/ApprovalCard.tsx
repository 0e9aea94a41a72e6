import { useState } from 'react'
import type { ToolPart } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { DiffText } from './DiffText'

/** What the agent wants to do, and the person's answer (spec 05 "Permissions"). */
export function ApprovalCard(props: { projectId: string; sessionId: string; part: ToolPart }) {
  const client = useClient()
  const { t } = useI18n()
  const [error, setError] = useState<string | null>(null)
  const [sent, setSent] = useState(false)
  const approval = props.part.approval
  if (!approval) return null

  async function decide(decision: 'approve' | 'reject' | 'always') {
    setSent(true)
    const outcome = await client.request(
      'session.approve',
      { session_id: props.sessionId, tool_call_id: props.part.id, decision },
      { owner: { project_id: props.projectId, session_id: props.sessionId } },
    )
    if (outcome.kind !== 'ok') {
      setSent(false)
      setError(failureMessage(outcome, t))
    }
  }

  return (
    <div className="approval" data-testid="approval" role="group" aria-label={t('approval.title')}>
      <p className="approval-title">
        {approval.kind === 'command'
          ? t('approval.command')
          : t('approval.files', { count: approval.files?.length ?? 0 })}
      </p>
      {approval.kind === 'command' ? (
        <pre className="approval-command">{approval.command}</pre>
      ) : (
        <>
          <ul className="approval-files">
            {(approval.files ?? []).map((file) => (
              <li key={file.path}>
                <span className="approval-op">{t(`approval.op.${file.operation}` as 'approval.op.modify')}</span>{' '}
                {file.path}
              </li>
            ))}
          </ul>
          <DiffText diff={approval.diff ?? ''} />
        </>
      )}
      <div className="approval-actions">
        <button
          type="button"
          className="primary"
          data-testid="approval-approve"
          disabled={sent}
          onClick={() => void decide('approve')}
        >
          {t('approval.approve')}
        </button>
        <button type="button" data-testid="approval-reject" disabled={sent} onClick={() => void decide('reject')}>
          {t('approval.reject')}
        </button>
        {approval.kind === 'command' && (
          <button type="button" data-testid="approval-always" disabled={sent} onClick={() => void decide('always')}>
            {t('approval.always')}
          </button>
        )}
      </div>
      {error && <p role="alert">{error}</p>}
    </div>
  )
}
