import { describe, expect, test } from 'vitest'
import type { TurnPart } from '../../../../shared/protocol'
import { matchingCommands, nextEnabled } from './slash-commands'
import { toolInputRows, toolInputSummary } from './tool-summary'
import {
  activeLineage,
  pruneLiveTurns,
  summaryOf,
  withLivePart,
  withLiveParts,
  type LiveTurns,
  type TranscriptData,
  type TranscriptNode,
} from '../session'
import { promptOf } from './transcript-model'
import { executableActions, restoredState } from './turn-actions'

const text = (id: string, value: string): TurnPart => ({ type: 'text', id, text: value })

function node(
  node_id: string,
  parent_node_id: string | null,
  kind: TranscriptNode['kind'],
  extra: Partial<TranscriptNode> = {},
): TranscriptNode {
  return { node_id, parent_node_id, kind, parts: [], status: 'complete', created_at_ms: 0, ...extra }
}

function transcript(nodes: TranscriptNode[], head: string): TranscriptData {
  return {
    session: {
      session_id: 's1',
      project_id: 'p1',
      title: 'T',
      root_node_id: 'root',
      active_branch_id: 'b1',
      state: 'active',
      permission_mode: 'ask',
      running_turn_id: null,
      created_at_ms: 0,
      updated_at_ms: 0,
      alignment: { state: 'aligned', files_node_id: head, head_node_id: head, checkpoint_id: null },
    },
    branches: [
      {
        branch_id: 'b1',
        parent_branch_id: null,
        head_node_id: head,
        head_version: 1,
        writer_epoch: 0,
        archived: false,
        fork_node_id: null,
        created_at_ms: 0,
        last_prompt: null,
      },
    ],
    nodes,
    restore: { undo_turn_id: null, redo_turn_id: null, undone_turn_ids: [] },
  }
}

describe('transcript model', () => {
  const nodes = [
    node('root', null, 'root'),
    node('u1', 'root', 'user', { parts: [text('prompt', 'first')] }),
    node('a1', 'u1', 'assistant'),
    node('u2', 'a1', 'user', { parts: [text('prompt', 'on the other branch')] }),
    node('a2', 'u2', 'assistant'),
    node('u3', 'a1', 'user', { parts: [text('prompt', 'second')] }),
    node('a3', 'u3', 'assistant', { status: 'running' }),
  ]

  test('shows only the active branch, oldest first, without ROOT', () => {
    expect(activeLineage(transcript(nodes, 'a3')).map((n) => n.node_id)).toEqual(['u1', 'a1', 'u3', 'a3'])
    expect(activeLineage(transcript(nodes, 'missing')).map((n) => n.node_id)).toHaveLength(6)
  })

  test('a live part replaces the part at its index of a running turn only', () => {
    const running = node('a3', 'u3', 'assistant', { status: 'running', parts: [text('t0', 'Hel')] })
    let live: LiveTurns = new Map()
    live = withLivePart(live, 'a3', 0, text('t0', 'Hello'))
    live = withLivePart(live, 'a3', 2, text('t2', 'later'))
    expect(withLiveParts(running, live.get('a3')).parts).toEqual([text('t0', 'Hello'), text('t2', 'later')])
    const finished = { ...running, status: 'complete' as const }
    expect(withLiveParts(finished, live.get('a3'))).toBe(finished)
  })

  test('a transcript read drops live parts of turns it shows finished, keeps running and unknown ones', () => {
    let live: LiveTurns = new Map()
    for (const turn of ['a3', 'a1', 'a9']) live = withLivePart(live, turn, 0, text('t', turn))
    expect([...pruneLiveTurns(live, transcript(nodes, 'a3')).keys()]).toEqual(['a3', 'a9'])
  })

  test('Retry re-sends the prompt the turn answered', () => {
    const a3 = nodes[6]
    expect(a3 && promptOf(nodes, a3)).toBe('second')
  })

  test('the summary comes from the node, else from its file-summary part', () => {
    const summary = { files: 2, added: 3, removed: 1, first_files: ['a', 'b'], transactions: 1 }
    expect(summaryOf(node('a', null, 'assistant', { summary }))).toEqual(summary)
    expect(summaryOf(node('a', null, 'assistant', { parts: [{ type: 'file-summary', id: 'fs', summary }] }))).toEqual(
      summary,
    )
    expect(summaryOf(node('a', null, 'assistant'))).toBeNull()
  })
})

describe('turn card actions', () => {
  const offers = { undo_turn_id: 't3', redo_turn_id: 't4', undone_turn_ids: ['t4', 't1'] }

  test('offers exactly one executable restore per turn', () => {
    expect(executableActions('t3', offers)).toEqual(['undo'])
    expect(executableActions('t4', offers)).toEqual(['redo'])
    expect(executableActions('t1', offers)).toEqual(['reapply'])
    expect(executableActions('t2', offers)).toEqual(['revert'])
  })

  test('the footer tells an Undo from a Revert', () => {
    expect(restoredState('t4', offers)).toBe('undone')
    expect(restoredState('t1', offers)).toBe('reverted')
    expect(restoredState('t2', offers)).toBeNull()
  })
})

describe('tool summaries', () => {
  test('name the file, command or pattern in one line', () => {
    expect(toolInputSummary('write', { file_path: 'src/a.ts', content: 'x' })).toBe('src/a.ts')
    expect(toolInputSummary('bash', { command: 'npm test\nnpm run lint' })).toBe('npm test')
    expect(toolInputSummary('grep', { pattern: 'TODO', path: 'src' })).toBe('TODO')
    expect(
      toolInputSummary('apply_patch', { patch: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n' }),
    ).toBe('a.txt, b.txt')
    expect(toolInputSummary('list', null)).toBe('')
  })

  test('show string inputs as they are', () => {
    expect(toolInputRows({ content: 'a\nb', replace_all: true })).toEqual([
      { key: 'content', value: 'a\nb' },
      { key: 'replace_all', value: 'true' },
    ])
  })
})

describe('slash commands', () => {
  test('list while a single /word is typed; arrows move through the available ones', () => {
    expect(matchingCommands('/').map((c) => c.name)).toEqual(['/new', '/undo', '/redo', '/rewind'])
    expect(matchingCommands('/ne').map((c) => c.name)).toEqual(['/new'])
    expect(matchingCommands('/re').map((c) => c.name)).toEqual(['/redo', '/rewind'])
    expect(matchingCommands('/new please')).toEqual([])
    expect(matchingCommands('a /new')).toEqual([])
    const all = matchingCommands('/')
    expect(nextEnabled(all, 0, 1)).toBe(1)
    expect(nextEnabled(all, 3, 1)).toBe(0)
    expect(nextEnabled(matchingCommands('/u'), 0, 1)).toBe(0)
    expect(nextEnabled([{ name: '/undo', available: false, hint: 'composer.cmdUndo' }], 0, 1)).toBe(-1)
  })
})
