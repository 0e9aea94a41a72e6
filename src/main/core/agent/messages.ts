import type { ModelMessage } from 'ai'
import type { ToolPart, TurnPart } from '../../../shared/protocol'
import type { NodeRecord } from '../conversation'

type AssistantPiece =
  { type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }

/** What the model is told about a call: its output, or why it produced none. */
export function toolResultText(part: ToolPart): { type: 'text' | 'error-text'; value: string } {
  if (part.state === 'completed') return { type: 'text', value: part.output ?? '' }
  if (part.state === 'error')
    return { type: 'error-text', value: `${part.error?.code ?? 'ERROR'}: ${part.error?.message ?? ''}` }
  return { type: 'error-text', value: 'aborted — result unknown' }
}

/**
 * One assistant turn's parts as model messages: each step is an assistant message (text and tool
 * calls) followed by a tool message with every call's result. The loop uses the same conversion
 * for the running turn, so what the model sees is always what was persisted.
 */
export function turnMessages(parts: readonly TurnPart[]): ModelMessage[] {
  const messages: ModelMessage[] = []
  let pieces: AssistantPiece[] = []
  let tools: ToolPart[] = []
  const flush = () => {
    if (pieces.length > 0) messages.push({ role: 'assistant', content: pieces })
    if (tools.length > 0) {
      messages.push({
        role: 'tool',
        content: tools.map((part) => ({
          type: 'tool-result' as const,
          toolCallId: part.id,
          toolName: part.tool,
          output: toolResultText(part),
        })),
      })
    }
    pieces = []
    tools = []
  }
  for (const part of parts) {
    switch (part.type) {
      case 'step-start':
        flush()
        break
      case 'text':
        if (part.text !== '') pieces.push({ type: 'text', text: part.text })
        break
      case 'tool':
        // A sub-agent's call belongs to its own conversation, reported by the task call's output.
        if (part.task_call_id !== undefined) break
        pieces.push({ type: 'tool-call', toolCallId: part.id, toolName: part.tool, input: part.input ?? {} })
        tools.push(part)
        break
      default:
        // Reasoning is not replayed (providers sign their own thinking blocks); step-finish,
        // file-summary and notices are Retrace's bookkeeping, not conversation.
        break
    }
  }
  flush()
  return messages
}

/** The active branch's lineage (ROOT → head) as the conversation sent to the model (spec 05 "Context"). */
export function lineageMessages(nodes: readonly NodeRecord[], headNodeId: string): ModelMessage[] {
  const byId = new Map(nodes.map((node) => [node.node_id, node]))
  const lineage: NodeRecord[] = []
  for (let node = byId.get(headNodeId); node; node = node.parent_node_id ? byId.get(node.parent_node_id) : undefined) {
    lineage.push(node)
  }
  lineage.reverse()
  const messages: ModelMessage[] = []
  for (const node of lineage) {
    if (node.kind === 'user') {
      const text = node.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
      messages.push({ role: 'user', content: text })
    } else if (node.kind === 'assistant') {
      messages.push(...turnMessages(node.parts))
    }
  }
  return messages
}
