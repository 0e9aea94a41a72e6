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

  test('the failures people meet most are shown in Chinese, sizes in binary units', () => {
    const failures = [
      {
        code: 'TOO_LARGE',
        message: '"big.log" is larger than the 64 MiB read limit.',
        details: { path: 'big.log', size: 70_000_000, limit: 64 * 1024 * 1024, reason: 'read-limit' },
      },
      { code: 'NOT_FOUND', message: '"a.md" does not exist.', details: { path: 'a.md', reason: 'no-file' } },
      {
        code: 'UNAVAILABLE',
        message: 'git status failed: fatal: bad revision',
        details: { verb: 'status', detail: 'fatal: bad revision', reason: 'git-failed' },
      },
      {
        code: 'BUSY',
        message: 'Stop the running turn before archiving this session.',
        details: { session_id: 's1', reason: 'turn-running' },
      },
    ] as const
    const shown = failures.map((error) => failureMessage({ kind: 'error', error }, zh))
    expect(shown).toEqual([
      '“big.log”超过了 64 MiB 的读取上限。',
      '“a.md”不存在。',
      'git status 失败：fatal: bad revision',
      '此会话中仍有一轮正在运行；请等待其结束或停止它。',
    ])
    expect(failureMessage({ kind: 'error', error: failures[0] }, en)).toBe(
      '"big.log" is larger than the 64 MiB read limit.',
    )
  })

  test('a size parameter the details do not give as a byte count falls back to the engine sentence', () => {
    const error = {
      code: 'TOO_LARGE',
      message: '"big.log" is larger than the read limit.',
      details: { path: 'big.log', limit: 'lots', reason: 'read-limit' },
    } as const
    expect(failureMessage({ kind: 'error', error }, zh)).toBe(error.message)
  })
})
