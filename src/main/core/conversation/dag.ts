import type { ChainNode } from './nodes'

/** Pure questions over predecessor chains (nodes.ts reads them). */

/** The index in both chains of their deepest common node (chains share ROOT). */
export function commonAncestorIndex(a: readonly ChainNode[], b: readonly ChainNode[]): number {
  let index = -1
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]?.node_id !== b[i]?.node_id) break
    index = i
  }
  return index
}

/** Assistant nodes (turns) of a chain after an index, oldest first. */
export function turnsAfter(chain: readonly ChainNode[], index: number): string[] {
  return chain.slice(index + 1).flatMap((node) => (node.kind === 'assistant' ? [node.node_id] : []))
}

/** Whether a node is on the chain. */
export function onChain(chain: readonly ChainNode[], nodeId: string): boolean {
  return chain.some((node) => node.node_id === nodeId)
}

/** The last turn of a chain. */
export function lastTurn(chain: readonly ChainNode[]): string | undefined {
  return [...chain].reverse().find((node) => node.kind === 'assistant')?.node_id
}
