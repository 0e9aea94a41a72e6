import { useLayoutEffect, useMemo, useRef } from 'react'
import { useI18n } from '../../i18n'
import { AssistantTurn, type TurnContext } from './AssistantTurn'
import { activeLineage, promptOf } from './transcript-model'
import type { TranscriptData } from './types'
import { UserBubble } from './UserBubble'

/** How close to the bottom (px) still counts as "following" the conversation. */
const FOLLOW_SLACK_PX = 48

/** The active branch's conversation, oldest first; it follows new output while scrolled to the end. */
export function Transcript(props: { data: TranscriptData; context: TurnContext; onRetry: (text: string) => void }) {
  const { t } = useI18n()
  const { data } = props
  const lineage = useMemo(() => activeLineage(data), [data])
  const scroller = useRef<HTMLDivElement>(null)
  const following = useRef(true)
  const running = data.session.running_turn_id !== null

  useLayoutEffect(() => {
    const element = scroller.current
    if (element && following.current) element.scrollTop = element.scrollHeight
  }, [lineage])

  return (
    <div
      className="transcript"
      data-testid="transcript"
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget
        following.current = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK_PX
      }}
    >
      {lineage.length === 0 && <p className="chat-empty">{t('chat.empty')}</p>}
      {lineage.map((node) => {
        if (node.kind === 'user') return <UserBubble key={node.node_id} node={node} />
        const prompt = promptOf(data.nodes, node)
        return (
          <AssistantTurn
            key={node.node_id}
            node={node}
            context={props.context}
            onRetry={prompt === null || running ? undefined : () => props.onRetry(prompt)}
          />
        )
      })}
    </div>
  )
}
