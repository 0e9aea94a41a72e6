import { describe, expect, test } from 'vitest'
import type { TurnSummaryData } from '../../../../shared/protocol'
import { translator } from '../../i18n'
import { summaryOf, type TranscriptNode } from '../session'
import { commandNotes } from './transcript-model'

const journal: TurnSummaryData = { files: 0, added: 0, removed: 0, first_files: [], transactions: 0 }

describe('the turn card says what commands changed that is not recorded or not restored (issue 23)', () => {
  test('a failed snapshot, files left out of snapshots and held files each get one line, in English and Chinese', () => {
    const summary: TurnSummaryData = {
      ...journal,
      command_unrecorded: { reason: 'failed', message: 'index file corrupt' },
      command_excluded: [{ reason: 'large', files: 1 }],
      command_held: [
        { reason: 'ignored-folder', files: 12 },
        { reason: 'person', files: 1 },
      ],
    }
    expect(commandNotes(summary, translator('en')).map((note) => note.text)).toEqual([
      'Not recorded: a step snapshot failed (index file corrupt)',
      'Not recorded: 1 file(s) over the 2 MiB snapshot limit',
      '12 file(s) in dependency folders (node_modules, .venv…): restored only if you ask',
      '1 file(s) you changed during a command step: shown, restored only if you ask',
    ])
    expect(commandNotes(summary, translator('zh-CN'))).toHaveLength(4)
    expect(commandNotes(journal, translator('en'))).toEqual([])
  })

  test('the stored change set keeps the journal counts; the notes come from the file-summary part', () => {
    const part: TurnSummaryData = { ...journal, command_excluded: [{ reason: 'large', files: 1 }] }
    const node = {
      node_id: 't',
      parent_node_id: null,
      kind: 'assistant',
      status: 'complete',
      parts: [{ type: 'file-summary', id: 'fs', summary: part }],
      summary: journal,
    } as unknown as TranscriptNode
    expect(summaryOf(node)).toEqual(part)
  })
})
