import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { FAILURE_REASONS, failureReason, type ErrorCode } from '../src/shared/protocol'

const ENGINE = join(import.meta.dirname, '../src/main')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.includes('.test.') ? [path] : []
  })
}

/** Each `fail('CODE', …, { reason: 'literal' })` in the engine: the reasons a view can be sent. */
function literalReasons(): Array<{ file: string; code: string; reason: string }> {
  const found: Array<{ file: string; code: string; reason: string }> = []
  for (const file of sources(ENGINE)) {
    const text = readFileSync(file, 'utf8')
    for (const call of text.matchAll(/\bfail\(\s*'([A-Z_]+)'/g)) {
      let depth = 1
      let end = (call.index ?? 0) + call[0].length
      while (depth > 0 && end < text.length) {
        if (text[end] === '(') depth += 1
        else if (text[end] === ')') depth -= 1
        end += 1
      }
      const body = text.slice(call.index, end)
      for (const reason of body.matchAll(/\breason:\s*'([a-z0-9-]+)'/g)) {
        found.push({ file: relative(ENGINE, file), code: call[1] ?? '', reason: reason[1] ?? '' })
      }
    }
  }
  return found
}

describe('failure reasons', () => {
  test('every literal reason the engine fails with is declared for its code in the protocol', () => {
    const engine = literalReasons()
    // A scan that finds nothing would pass vacuously.
    expect(engine.length).toBeGreaterThan(50)
    const undeclared = engine.filter(({ code, reason }) => {
      const declared: readonly string[] | undefined = (FAILURE_REASONS as Partial<Record<string, readonly string[]>>)[
        code
      ]
      return !declared?.includes(reason)
    })
    expect(undeclared).toEqual([])
  })

  test('a view gets the reason only when it is declared for that very code', () => {
    const error = (code: ErrorCode, reason?: unknown) => ({ code, message: 'm', details: { reason } })
    expect(failureReason(error('UNAVAILABLE', 'no-model'))).toBe('no-model')
    expect(failureReason(error('CONFLICT', 'no-model'))).toBeUndefined()
    expect(failureReason(error('UNAVAILABLE', 'from-a-newer-engine'))).toBeUndefined()
    expect(failureReason(error('UNAVAILABLE', 42))).toBeUndefined()
    expect(failureReason({ code: 'INTERNAL', message: 'm' })).toBeUndefined()
  })
})
