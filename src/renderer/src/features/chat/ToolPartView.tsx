import { useState } from 'react'
import type { ToolPart } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { ApprovalCard } from './ApprovalCard'
import { ChevronIcon } from './icons'
import { toolInputRows, toolInputSummary } from './tool-summary'
import type { ApprovalDecision } from './types'

const STATE_LABEL: Record<ToolPart['state'], MessageKey> = {
  pending: 'tool.state.pending',
  running: 'tool.state.running',
  completed: 'tool.state.completed',
  error: 'tool.state.error',
}

function approvalNote(part: ToolPart): MessageKey | null {
  const approval = part.approval
  if (!approval || approval.status === 'waiting') return null
  if (approval.status === 'rejected') return 'approval.decided.rejected'
  if (approval.decided_by === 'always-allow') return 'approval.decided.always'
  return approval.status === 'auto' ? 'approval.decided.mode' : 'approval.decided.user'
}

/** One tool call as a row: name, what it acts on, its state; expands to its input and result. */
export function ToolPartView(props: {
  part: ToolPart
  onDecide: (decision: ApprovalDecision) => Promise<RequestOutcome<unknown>>
}) {
  const { t } = useI18n()
  const { part } = props
  const [open, setOpen] = useState(false)
  const waiting = part.approval?.status === 'waiting'
  const summary = toolInputSummary(part.tool, part.input)
  const note = approvalNote(part)
  const seconds =
    part.started_at_ms !== undefined && part.ended_at_ms !== undefined
      ? Math.max(0, part.ended_at_ms - part.started_at_ms) / 1000
      : null

  return (
    <div
      className={`tool-part tool-part-${part.state}${part.task_call_id !== undefined ? ' tool-part-subtask' : ''}`}
      data-testid="tool-part"
      data-tool={part.tool}
      data-state={part.state}
      // A sub-agent's call: indented under the task that ran it.
      data-task-call={part.task_call_id}
    >
      <button type="button" className="tool-row" aria-expanded={open} onClick={() => setOpen(!open)}>
        <ChevronIcon open={open} />
        <span className="tool-name">{part.tool}</span>
        <span className="tool-summary" title={summary}>
          {summary}
        </span>
        <span
          className={`tool-state tool-state-${waiting ? 'waiting' : part.state}`}
          title={seconds === null ? undefined : t('tool.duration', { seconds: seconds.toFixed(1) })}
        >
          {waiting ? t('tool.waiting') : t(STATE_LABEL[part.state])}
        </span>
      </button>
      {!open && part.state === 'error' && part.error && (
        <p className="tool-error-line">{part.error.message.split('\n')[0]}</p>
      )}
      {open && (
        <div className="tool-detail">
          <div className="tool-section-label">{t('tool.input')}</div>
          <div className="tool-io">
            {toolInputRows(part.input).map((row) => (
              <div key={row.key} className="tool-input-row">
                {row.key !== '' && <span className="tool-input-key">{row.key}</span>}
                <span className="tool-input-value">{row.value}</span>
              </div>
            ))}
          </div>
          {part.output !== undefined && (
            <>
              <div className="tool-section-label">{t('tool.output')}</div>
              <pre className="tool-io">{part.output}</pre>
            </>
          )}
          {part.error && (
            <>
              <div className="tool-section-label">{t('tool.error')}</div>
              <pre className="tool-io tool-io-error">
                {part.error.code}: {part.error.message}
              </pre>
            </>
          )}
          {note !== null && <p className="tool-note">{t(note)}</p>}
        </div>
      )}
      {waiting && part.approval && <ApprovalCard approval={part.approval} onDecide={props.onDecide} />}
    </div>
  )
}
