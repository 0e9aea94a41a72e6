import { existsSync, globSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { INTEGRATION_TESTS_IN_SRC, UNIT_INCLUDE } from '../../vitest.config.mjs'

const repoRoot = join(import.meta.dirname, '..', '..')

/**
 * What makes a test an integration test (vitest.config.mts names the rule): a child process, a
 * SQLite database or a socket, directly or through the test helpers that start one.
 */
const NOT_PURE: ReadonlyArray<readonly [RegExp, string]> = [
  [/['"]node:child_process['"]/, 'starts a child process'],
  [/['"]node:sqlite['"]/, 'opens SQLite'],
  [/['"]node:(net|http|https)['"]|\bnew WebSocket\b|\bcreateServer\(/, 'uses a socket'],
  [
    /test\/support\/(core|journal|protocol|http|ws-client|child-web-host|hostile-repo|agent|history)['"]/,
    'uses a helper that starts the core, git or a host',
  ],
  [/\bcreateCore\(|\bopenDatabase\(|\bopenJournalStore\(/, 'opens the core or its database'],
]

function unitProjectFiles(): string[] {
  const integration = new Set(INTEGRATION_TESTS_IN_SRC)
  return UNIT_INCLUDE.flatMap((pattern) => globSync(pattern, { cwd: repoRoot }))
    .map((file) => file.split('\\').join('/'))
    .filter((file) => !integration.has(file))
    .sort()
}

describe('the unit, integration and e2e projects', () => {
  test('every test in the unit project is pure: no child process, SQLite or socket', () => {
    const files = unitProjectFiles()
    expect(files.length).toBeGreaterThan(0)
    const impure = files.flatMap((file) => {
      const source = readFileSync(join(repoRoot, file), 'utf8')
      return NOT_PURE.filter(([pattern]) => pattern.test(source)).map(([, why]) => `${file} ${why}`)
    })
    // A hit here means the file belongs in INTEGRATION_TESTS_IN_SRC (vitest.config.mts).
    expect(impure).toEqual([])
  })

  test('every src test named as integration exists, so a rename cannot drop it into unit', () => {
    expect(INTEGRATION_TESTS_IN_SRC.filter((file) => !existsSync(join(repoRoot, file)))).toEqual([])
  })
})
