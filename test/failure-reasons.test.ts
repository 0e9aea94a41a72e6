import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { en } from '../src/renderer/src/i18n/en'
import { zhCN } from '../src/renderer/src/i18n/zh-CN'
import { ERROR_CODES, FAILURE_REASONS, failureReason, type ErrorCode } from '../src/shared/protocol'

const ENGINE = join(import.meta.dirname, '../src/main')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.includes('.test.') ? [path] : []
  })
}

/** The text from `open` at `start` to its matching `close`. */
function balanced(text: string, start: number, open: string, close: string): string {
  let depth = 0
  for (let end = start; end < text.length; end += 1) {
    if (text[end] === open) depth += 1
    else if (text[end] === close && --depth === 0) return text.slice(start, end + 1)
  }
  return text.slice(start)
}

/**
 * Each `fail('CODE', …, { reason: 'literal' })` in the engine, and each failure built as an object
 * (`{ code: 'CODE', message, details: { reason: 'literal' } }`): the reasons a view can be sent.
 */
function literalReasons(): Array<{ file: string; code: string; reason: string; call: string }> {
  const found: Array<{ file: string; code: string; reason: string; call: string }> = []
  const codes: readonly string[] = ERROR_CODES
  for (const file of sources(ENGINE)) {
    const text = readFileSync(file, 'utf8')
    const calls = [
      ...[...text.matchAll(/\bfail\(\s*'([A-Z_]+)'/g)].map((call) => ({
        code: call[1] ?? '',
        body: balanced(text, (call.index ?? 0) + 'fail'.length, '(', ')'),
      })),
      // Tool results (ABORTED, TASK_FAILED…) have codes of their own and go to the model.
      ...[...text.matchAll(/\bcode:\s*'([A-Z_]+)'/g)]
        .filter((object) => codes.includes(object[1] ?? ''))
        .map((object) => ({
          code: object[1] ?? '',
          body: balanced(text, text.lastIndexOf('{', object.index), '{', '}'),
        })),
    ]
    for (const { code, body } of calls) {
      for (const reason of body.matchAll(/\breason:\s*'([a-z0-9-]+)'/g)) {
        found.push({ file: relative(ENGINE, file), code, reason: reason[1] ?? '', call: body })
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

describe('failure sentences in the catalogue', () => {
  const params = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '').sort()

  test('every declared reason has a sentence in English and Chinese, with the same parameters', () => {
    const catalogues: Array<[string, Record<string, string>]> = [
      ['en', en],
      ['zh-CN', zhCN],
    ]
    const problems: string[] = []
    for (const [code, reasons] of Object.entries(FAILURE_REASONS)) {
      for (const reason of reasons) {
        const key = `failure.${code}.${reason}`
        const english = (en as Record<string, string>)[key]
        for (const [locale, catalogue] of catalogues) {
          const sentence = catalogue[key]
          if (sentence === undefined) problems.push(`${locale} lacks ${key}`)
          else if (english !== undefined && params(sentence).join() !== params(english).join())
            problems.push(`${locale} ${key} names {${params(sentence).join('}, {')}}`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  test('each failure the engine sends names in its details the parameters of its sentence', () => {
    // A parameter missing from the details makes the view fall back to the engine's English
    // sentence, so a Chinese UI would show English again. `<detail>Bytes` is the `<detail>` byte
    // count, formatted (see outcome-message.ts).
    const missing: string[] = []
    for (const { file, code, reason, call } of literalReasons()) {
      const sentence = (en as Record<string, string>)[`failure.${code}.${reason}`]
      // A tool's failure goes to the model, in the transcript as the engine wrote it: never translated.
      if (file.startsWith(join('core', 'agent', 'tools'))) continue
      if (sentence === undefined || /\.\.\.\w/.test(call)) continue
      for (const name of params(sentence).map((param) => param.replace(/Bytes$/, ''))) {
        // `name: value` or the shorthand `{ name }` in the details object
        if (!new RegExp(`(\\b${name}:|[{,]\\s*${name}\\s*[,}])`).test(call))
          missing.push(`${file}: ${code}.${reason} lacks ${name}`)
      }
    }
    expect(missing).toEqual([])
  })

  test('the catalogue has no failure sentence for a reason the protocol does not declare', () => {
    const declared = new Set(
      Object.entries(FAILURE_REASONS).flatMap(([code, reasons]) =>
        reasons.map((reason) => `failure.${code}.${reason}`),
      ),
    )
    const orphans = Object.keys(en).filter((key) => key.startsWith('failure.') && !declared.has(key))
    expect(orphans).toEqual([])
  })

  test('a Chinese sentence is Chinese, not the English one copied over', () => {
    const untranslated = Object.keys(en).filter(
      (key) => key.startsWith('failure.') && !/[\u4e00-\u9fff]/.test((zhCN as Record<string, string>)[key] ?? ''),
    )
    expect(untranslated).toEqual([])
  })
})
