import { useState } from 'react'
import type { ToolPart } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { ApprovalCard } from './ApprovalCard'

function summaryOf(part: ToolPart): string {
  const input = (part.input ?? {}) as Record<string, unknown>
  const value = input.file_path ?? input.command ?? input.pattern ?? input.path
  if (typeof value === 'string') return value.split('\n')[0] ?? ''
  if (part.tool === 'apply_patch' && typeof input.patch === 'string') {
    const files = input.patch.match(/^\*\*\* (Add|Update|Delete) File: .*$/gm) ?? []
    return files.map((line) => line.replace(/^\*\*\* \w+ File: /, '')).join(', ')
  }
  return ''
}

/** One tool call: name, what it acts on, its state; expands to input and output. */
export function ToolPartView(props: { projectId: string; sessionId: string; part: ToolPart }) {
  const { t } = useI18n()
  const { part } = props
  const [open, setOpen] = useState(false)
  const waiting = part.approval?.status === 'waiting'
  return (
    <div className="tool-part" data-testid="tool-part" data-tool={part.tool} data-state={part.state}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tool-name">{part.tool}</span>
        <span className="tool-summary">{summaryOf(part)}</span>
        <span className={`tool-state tool-state-${part.state}`}>
          {waiting ? t('tool.waiting') : t(`tool.state.${part.state}`)}
        </span>
      </button>
      {part.state === 'error' && part.error && !open && (
        <p className="tool-error-line">{part.error.message.split('\n')[0]}</p>
      )}
      {open && (
        <div className="tool-body">
          <pre className="tool-io">{JSON.stringify(part.input, null, 2)}</pre>
          {part.output !== undefined && <pre className="tool-io">{part.output}</pre>}
          {part.error && (
            <pre className="tool-io tool-io-error">
              {part.error.code}: {part.error.message}
            </pre>
          )}
        </div>
      )}
      {waiting && <ApprovalCard projectId={props.projectId} sessionId={props.sessionId} part={part} />}
    </div>
  )
}
