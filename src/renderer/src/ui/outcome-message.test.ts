import { describe, expect, test } from 'vitest'
import { translator } from '../i18n'
import { failureMessage, isFailure } from './outcome-message'

const zh = translator('zh-CN')
const en = translator('en')

describe('engine failure messages', () => {
  test('a failure with a declared reason is shown in the chosen language, its details filling the sentence', () => {
    const outcome = {
      kind: 'error',
      error: {
        code: 'CONFLICT',
        message: '"a.md" changed while Retrace read it; try again.',
        details: { path: 'a.md', reason: 'changed-during-read' },
      },
    } as const
    expect(failureMessage(outcome, zh)).toBe('Retrace 读取“a.md”时它发生了变化，请重试。')
    expect(failureMessage(outcome, en)).toBe('"a.md" changed while Retrace read it; try again.')
  })

  test('without a catalogue key, or with details missing a parameter, the engine sentence is shown', () => {
    const sentence = 'The engine says exactly this.'
    const noReason = { kind: 'error', error: { code: 'NOT_FOUND', message: sentence } } as const
    const unknownReason = {
      kind: 'error',
      error: { code: 'UNAVAILABLE', message: sentence, details: { reason: 'from-a-newer-engine' } },
    } as const
    const missingPath = {
      kind: 'error',
      error: { code: 'CONFLICT', message: sentence, details: { reason: 'changed-during-read' } },
    } as const
    expect(failureMessage(noReason, zh)).toBe(sentence)
    expect(failureMessage(unknownReason, zh)).toBe(sentence)
    expect(failureMessage(missingPath, zh)).toBe(sentence)
  })

  test('isFailure matches a code and, when given, only a reason declared for it', () => {
    const noModel = {
      kind: 'error',
      error: { code: 'UNAVAILABLE', message: 'm', details: { reason: 'no-model' } },
    } as const
    expect(isFailure(noModel, 'UNAVAILABLE')).toBe(true)
    expect(isFailure(noModel, 'UNAVAILABLE', 'no-model')).toBe(true)
    expect(isFailure(noModel, 'UNAVAILABLE', 'misaligned')).toBe(false)
    expect(isFailure(noModel, 'BUSY')).toBe(false)
    expect(isFailure({ kind: 'timeout' }, 'UNAVAILABLE')).toBe(false)
  })
})
