import type { TranscriptNode } from './types'
import { textOf } from './transcript-model'

export function UserBubble(props: { node: TranscriptNode }) {
  return (
    <div className="user-bubble" data-testid="user-message">
      {textOf(props.node)}
    </div>
  )
}
