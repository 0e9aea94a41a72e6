import { useEffect, useRef, useState } from 'react'
import type { TurnPart } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { NoticeView } from './NoticeView'
import { ToolPartView } from './ToolPartView'
import { TurnCard } from './TurnCard'
import type { Transcript as TranscriptData, TranscriptNode } from './use-chat'

function Reasoning(props: { text: string }) {
  const { t } = useI18n()
  const [open, setOpen] = useState(false)
  return (
    <div className="reasoning">
      <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {t('chat.reasoning')}
      </button>
      {open && <p className="reasoning-text">{props.text}</p>}
    </div>
  )
}

function PartView(props: { part: TurnPart; projectId: string; sessionId: string; onRetry: () => void }) {
  const { part } = props
  switch (part.type) {
    case 'text':
      return part.text === '' ? null : <p className="assistant-text">{part.text}</p>
    case 'reasoning':
      return part.text === '' ? null : <Reasoning text={part.text} />
    case 'tool':
      return <ToolPartView projectId={props.projectId} sessionId={props.sessionId} part={part} />
    case 'notice':
      return <NoticeView part={part} onRetry={props.onRetry} />
    default:
      // step-start / step-finish / file-summary are bookkeeping; the card shows the summary.
      return null
  }
}

/** The active branch's conversation, oldest first; the running turn updates part by part. */
export function Transcript(props: {
  projectId: string
  data: TranscriptData
  onRetry: (text: string) => void
  onChanged: () => void
}) {
  const { t } = useI18n()
  const { data } = props
  const sessionId = data.session.session_id
  const end = useRef<HTMLDivElement>(null)
  const byId = new Map(data.nodes.map((node) => [node.node_id, node]))
  const branch = data.branches.find((b) => b.branch_id === data.session.active_branch_id)
  const lineage: TranscriptNode[] = []
  for (let node = branch ? byId.get(branch.head_node_id) : undefined; node;) {
    lineage.push(node)
    node = node.parent_node_id ? byId.get(node.parent_node_id) : undefined
  }
  lineage.reverse()
  const lastCount = lineage.length
  const lastParts = lineage.at(-1)?.parts.length ?? 0
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' })
  }, [lastCount, lastParts])

  return (
    <div className="transcript" data-testid="transcript">
      {lineage.length <= 1 && <p className="chat-empty">{t('chat.empty')}</p>}
      {lineage.map((node) => {
        if (node.kind === 'root') return null
        if (node.kind === 'user') {
          const text = node.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
          return (
            <div key={node.node_id} className="user-bubble">
              {text}
            </div>
          )
        }
        const prompt = node.parent_node_id ? byId.get(node.parent_node_id) : undefined
        const promptText = prompt?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? ''
        const running = node.status === 'running'
        return (
          <div key={node.node_id} className="assistant-turn" data-testid="turn" data-turn-id={node.node_id}>
            {node.parts.map((part, index) => (
              <PartView
                key={`${part.type}:${part.id}:${index}`}
                part={part}
                projectId={props.projectId}
                sessionId={sessionId}
                onRetry={() => props.onRetry(promptText)}
              />
            ))}
            {running && <p className="turn-running">{t('chat.working')}</p>}
            {node.summary && node.summary.files > 0 && (
              <TurnCard
                projectId={props.projectId}
                sessionId={sessionId}
                turnId={node.node_id}
                summary={node.summary}
                offers={data.restore}
                running={data.session.running_turn_id !== null}
                onChanged={props.onChanged}
              />
            )}
          </div>
        )
      })}
      <div ref={end} />
    </div>
  )
}
