import { useLayoutEffect, useMemo, useRef } from 'react'
import { useI18n } from '../../i18n'
import { AssistantTurn, type TurnContext } from './AssistantTurn'
import { activeLineage, type Branch, type TranscriptData } from '../session'
import { branchLabels, forkMarkers, promptOf } from './transcript-model'
import { UserBubble } from './UserBubble'

/** How close to the bottom (px) still counts as "following" the conversation. */
const FOLLOW_SLACK_PX = 48

/** The active branch's conversation, oldest first; it follows new output while scrolled to the end. */
export function Transcript(props: {
  data: TranscriptData
  context: TurnContext
  onRetry: (text: string) => void
  /** Opens the impact sheet on the checkpoint before a prompt (the turn answering it). */
  onRestoreCheckpoint?: (turnId: string) => void
  onSwitchBranch?: (branchId: string) => void
}) {
  const { t } = useI18n()
  const { data } = props
  const lineage = useMemo(() => activeLineage(data), [data])
  const markers = useMemo(() => forkMarkers(data, lineage), [data, lineage])
  const labels = useMemo(() => branchLabels(data.branches), [data.branches])
  const nameOf = (branch: Branch | undefined) => {
    const label = branch ? labels.get(branch.branch_id) : undefined
    return label === undefined ? '' : label.main ? t('branch.main') : t('branch.name', { n: label.n })
  }
  const marker = (nodeId: string) =>
    (markers.get(nodeId) ?? []).map(({ branch, own }) => {
      const parent = data.branches.find((b) => b.branch_id === branch.parent_branch_id)
      return (
        <div
          key={`fork:${branch.branch_id}`}
          className={own ? 'fork-marker fork-marker-own' : 'fork-marker'}
          role="note"
          data-testid="fork-marker"
          data-branch-id={branch.branch_id}
        >
          <span className="fork-marker-line" aria-hidden="true" />
          <span className="fork-marker-text">
            {own
              ? t('branch.leftParent', { name: nameOf(branch), parent: nameOf(parent) })
              : t('branch.continues', { name: nameOf(branch), prompt: branch.last_prompt ?? t('branch.atStart') })}
          </span>
          {own && parent && props.onSwitchBranch && (
            <button
              type="button"
              className="link-button"
              aria-label={t('branch.switchTo', { name: nameOf(parent) })}
              onClick={() => props.onSwitchBranch?.(parent.branch_id)}
            >
              {t('branch.switch')}
            </button>
          )}
          {!own && props.onSwitchBranch && (
            <button
              type="button"
              className="link-button"
              aria-label={t('branch.switchTo', { name: nameOf(branch) })}
              onClick={() => props.onSwitchBranch?.(branch.branch_id)}
            >
              {t('branch.switch')}
            </button>
          )}
        </div>
      )
    })
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
      {marker(data.session.root_node_id)}
      {lineage.map((node, index) => {
        if (node.kind === 'user') {
          const answer = lineage[index + 1]
          const restorable =
            answer?.kind === 'assistant' && answer.status !== 'running' && !running && props.onRestoreCheckpoint
          return (
            <UserBubble
              key={node.node_id}
              node={node}
              onRestoreCheckpoint={restorable ? () => props.onRestoreCheckpoint?.(answer.node_id) : undefined}
            />
          )
        }
        const prompt = promptOf(data.nodes, node)
        return [
          <AssistantTurn
            key={node.node_id}
            node={node}
            context={props.context}
            onRetry={prompt === null || running ? undefined : () => props.onRetry(prompt)}
          />,
          ...marker(node.node_id),
        ]
      })}
    </div>
  )
}
