import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { bundledRipgrep, ripgrepOnPath } from '../src/main/core/files/content-search-rg'
import { resultOf } from './support/agent'
import { openProject, startCore } from './support/core'
import { tempDir } from './support/temp'

type ContentPage = {
  snapshot_id: string
  files: Array<{
    path: string
    more: boolean
    matches: Array<{
      line: number
      column: number
      preview: string
      preview_cut: boolean
      ranges: Array<[number, number]>
    }>
  }>
  next_cursor: string | null
  page_size: number
  done: boolean
  stopped: string | null
  engine: string
}

function tree(files: Record<string, string | Buffer>): string {
  const root = tempDir('retrace-content-')
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const MATH = [
  'export function add(a: number, b: number) {',
  '  return a + b',
  '}',
  'export const subtract = (a: number, b: number) => a - b',
  '// Subtraction is add with a negated second operand: subtract(a, b) = add(a, -b)',
  '',
].join('\n')

const ripgrep = bundledRipgrep()
const engines = [
  { name: 'ripgrep', options: {}, available: ripgrep !== null },
  { name: 'walk', options: { ripgrep: null }, available: true },
] as const

for (const engine of engines) {
  describe(`files.search_content (${engine.name})`, () => {
    if (!engine.available) {
      test.skip(`${engine.name}: no ripgrep binary for ${process.platform}-${process.arch} and none on PATH`, () => {})
      return
    }
    async function setup(files: Record<string, string | Buffer>, options: Record<string, unknown> = {}) {
      const root = tree(files)
      const core = startCore({ contentSearch: { ...engine.options, ...options } })
      const project = await openProject(core, root)
      const call = (payload: Record<string, unknown>) => project.call('files.search_content', payload)
      const search = async (payload: Record<string, unknown>) => resultOf((await call(payload)) as never) as ContentPage
      return { root, project, call, search }
    }
    const lines = (page: ContentPage) =>
      page.files.flatMap((file) => file.matches.map((m) => `${file.path}:${m.line}:${m.column}`)).sort()

    test('finds "subtract" inside src/util/math.ts with line, column and the match to highlight', async () => {
      const { search } = await setup({ 'src/util/math.ts': MATH, 'README.md': 'nothing here\n' })
      const page = await search({ query: 'subtract' })
      expect(page.engine).toBe(engine.name)
      expect(page.done).toBe(true)
      expect(page.stopped).toBeNull()
      expect(page.next_cursor).toBeNull()
      expect(page.files.map((f) => f.path)).toEqual(['src/util/math.ts'])
      const [first, second] = page.files[0]?.matches ?? []
      expect(first).toEqual({
        line: 4,
        column: 14,
        preview: 'export const subtract = (a: number, b: number) => a - b',
        preview_cut: false,
        ranges: [[13, 21]],
      })
      // Case-insensitive by default: "Subtraction" and "subtract(" both count on line 5.
      expect(second?.line).toBe(5)
      expect(second?.ranges).toHaveLength(2)
      expect(second?.preview.slice(...(second.ranges[0] ?? [0, 0]))).toBe('Subtract')
    })

    test('match case, whole word, literal versus regex', async () => {
      const { search } = await setup({ 'src/util/math.ts': MATH, 'dots.txt': 'a.b\naxb\n' })
      expect(lines(await search({ query: 'Subtract', match_case: true }))).toEqual(['src/util/math.ts:5:4'])
      // "Subtraction" is not the whole word "subtract"; "subtract(" and "subtract =" are.
      const word = await search({ query: 'subtract', whole_word: true })
      expect(lines(word)).toEqual(['src/util/math.ts:4:14', 'src/util/math.ts:5:54'])
      // A literal dot is a dot; as a regex it is any character.
      expect(lines(await search({ query: 'a.b' }))).toEqual(['dots.txt:1:1'])
      expect(lines(await search({ query: 'a.b', regex: true }))).toEqual(['dots.txt:1:1', 'dots.txt:2:1'])
      expect(lines(await search({ query: 'sub\\w+act\\(', regex: true }))).toEqual(['src/util/math.ts:5:54'])
    })

    test('include and exclude globs; a folder glob ending in / takes what is inside', async () => {
      const { search } = await setup({
        'src/a.ts': 'needle\n',
        'src/b.md': 'needle\n',
        'lib/c.ts': 'needle\n',
        'vendor/d.ts': 'needle\n',
      })
      const paths = (page: ContentPage) => page.files.map((f) => f.path).sort()
      expect(paths(await search({ query: 'needle', include: ['*.ts'] }))).toEqual([
        'lib/c.ts',
        'src/a.ts',
        'vendor/d.ts',
      ])
      expect(paths(await search({ query: 'needle', include: ['src/'] }))).toEqual(['src/a.ts', 'src/b.md'])
      expect(paths(await search({ query: 'needle', exclude: ['vendor', '*.md'] }))).toEqual(['lib/c.ts', 'src/a.ts'])
      expect(paths(await search({ query: 'needle', include: ['*.ts'], exclude: ['lib/**'] }))).toEqual([
        'src/a.ts',
        'vendor/d.ts',
      ])
    })

    test('.gitignore, info/exclude and the .git folder are never searched; binary files and FIFOs are skipped', async () => {
      const { root, search } = await setup({
        '.gitignore': 'build/\n*.log\n',
        'build/out.js': 'needle\n',
        'app.log': 'needle\n',
        'kept.ts': 'needle\n',
        'private.txt': 'needle\n',
        'image.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2, 3]), Buffer.from('needle\n')]),
        'pkg/.gitignore': 'gen.ts\n',
        'pkg/gen.ts': 'needle\n',
        'pkg/main.ts': 'needle\n',
      })
      execFileSync('git', ['init', '-q'], { cwd: root })
      // A FIFO nobody writes to: opening it to read would wait forever.
      execFileSync('mkfifo', [join(root, 'needle-pipe')])
      writeFileSync(join(root, '.git/info/exclude'), 'private.txt\n')
      writeFileSync(join(root, '.git/needle-note'), 'needle\n')
      const page = await search({ query: 'needle' })
      expect(page.files.map((f) => f.path).sort()).toEqual(['kept.ts', 'pkg/main.ts'])
    })

    test('only git’s ignore rules apply: a repository’s .ignore or .rgignore hides nothing, with either backend', async () => {
      const { search } = await setup({
        '.ignore': 'hidden-a.ts\n',
        '.rgignore': 'hidden-b.ts\n',
        'hidden-a.ts': 'needle\n',
        'hidden-b.ts': 'needle\n',
        'kept.ts': 'needle\n',
      })
      const page = await search({ query: 'needle' })
      expect(page.files.map((f) => f.path).sort()).toEqual(['hidden-a.ts', 'hidden-b.ts', 'kept.ts'])
    })

    test("links are never followed, and Retrace's data directory inside the project is never searched", async () => {
      const outside = tree({ 'secret.txt': 'needle\n' })
      const root = tree({ 'kept.ts': 'needle\n' })
      symlinkSync(outside, join(root, 'linked-folder'))
      symlinkSync(join(outside, 'secret.txt'), join(root, 'linked-file.txt'))
      const core = startCore({ dataDir: join(root, '.retrace-data'), contentSearch: { ...engine.options } })
      const project = await openProject(core, root)
      writeFileSync(join(root, '.retrace-data', 'note.txt'), 'needle\n')
      const page = resultOf((await project.call('files.search_content', { query: 'needle' })) as never) as ContentPage
      expect(page.files.map((f) => f.path)).toEqual(['kept.ts'])
    })

    test('results come in pages of 50 files from one snapshot; a cursor of another query is refused', async () => {
      const files: Record<string, string> = {}
      for (let i = 0; i < 120; i++) files[`notes/n-${String(i).padStart(3, '0')}.md`] = `line\nfind me ${i}\n`
      const { search, call } = await setup(files)
      const first = await search({ query: 'find me' })
      expect(first.page_size).toBe(50)
      expect(first.files).toHaveLength(50)
      expect(first.next_cursor).not.toBeNull()
      const second = await search({ query: 'find me', cursor: first.next_cursor })
      const third = await search({ query: 'find me', cursor: second.next_cursor })
      expect(second.snapshot_id).toBe(first.snapshot_id)
      expect(third.snapshot_id).toBe(first.snapshot_id)
      expect(third.files).toHaveLength(20)
      expect(third.next_cursor).toBeNull()
      expect(third.done).toBe(true)
      const all = [...first.files, ...second.files, ...third.files].map((f) => f.path)
      expect(new Set(all).size).toBe(120)
      expect(await call({ query: 'find', cursor: first.next_cursor })).toMatchObject({
        status: 'error',
        error: { code: 'STALE_SNAPSHOT' },
      })
    })

    test('a file with more matching lines than the per-file bound says so', async () => {
      const { search } = await setup({ 'many.txt': 'hit\n'.repeat(150) })
      const page = await search({ query: 'hit' })
      expect(page.files[0]?.matches).toHaveLength(100)
      expect(page.files[0]?.more).toBe(true)
    })

    test('the result bound stops the search with stopped: limit', async () => {
      const files: Record<string, string> = {}
      for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = 'hit\nhit\n'
      const { search } = await setup(files, { bounds: { maxMatches: 10 } })
      const page = await search({ query: 'hit' })
      expect(page).toMatchObject({ done: true, stopped: 'limit', next_cursor: null })
      const lines = page.files.reduce((sum, file) => sum + file.matches.length, 0)
      expect(lines).toBeGreaterThanOrEqual(10)
      expect(lines).toBeLessThan(60)
    })

    test('a match deep in a long line is shown with the text just before it, the preview bounded', async () => {
      const { search } = await setup({ 'long.txt': `${'x'.repeat(5000)}needle${'y'.repeat(5000)}\n` })
      const match = (await search({ query: 'needle' })).files[0]?.matches[0]
      expect(match?.column).toBe(5001)
      expect(match?.preview_cut).toBe(true)
      expect(match?.preview.length).toBeLessThanOrEqual(250)
      expect(match?.preview.slice(...(match.ranges[0] ?? [0, 0]))).toBe('needle')
    })

    test('a broken regex, a control character and an over-long query answer precise codes', async () => {
      const { call } = await setup({ 'a.txt': 'x\n' })
      expect(await call({ query: 'sub(tract', regex: true })).toMatchObject({
        status: 'error',
        error: { code: 'INVALID_REQUEST', details: { reason: 'invalid-regex' } },
      })
      if (engine.name === 'ripgrep') {
        // The walk's glob matcher reads "a[" as the literal name; ripgrep refuses it, in its words.
        expect(await call({ query: 'x', include: ['a['] })).toMatchObject({
          status: 'error',
          error: {
            code: 'INVALID_REQUEST',
            details: { reason: 'invalid-glob', detail: expect.stringContaining("'a['") },
          },
        })
      }
      expect(await call({ query: 'a\nb' })).toMatchObject({ status: 'error', error: { code: 'INVALID_REQUEST' } })
      expect(await call({ query: 'x'.repeat(1001) })).toMatchObject({
        status: 'error',
        error: { code: 'INVALID_REQUEST' },
      })
      expect(await call({ query: 'x', include: Array.from({ length: 33 }, () => '*.ts') })).toMatchObject({
        status: 'error',
        error: { code: 'INVALID_REQUEST' },
      })
    })
  })
}

describe('which ripgrep runs', () => {
  test('an rg on PATH is used only from an absolute folder: a repository cannot ship one through ".", "bin" or ""', () => {
    const repo = tempDir()
    const system = tempDir()
    for (const folder of [repo, join(repo, 'bin'), system]) {
      mkdirSync(folder, { recursive: true })
      writeFileSync(join(folder, 'rg'), '#!/bin/sh\nexit 0\n')
      chmodSync(join(folder, 'rg'), 0o755)
    }
    const relativeBin = relative(process.cwd(), join(repo, 'bin'))
    expect(ripgrepOnPath(['', '.', 'bin', relativeBin].join(delimiter), 'rg')).toBeNull()
    expect(ripgrepOnPath(['.', relativeBin, system].join(delimiter), 'rg')).toBe(join(system, 'rg'))
  })
})

describe('files.search_content: hostile regexes', () => {
  const catastrophic = { 'bad.txt': `${'a'.repeat(40)}!\n` }

  test('the built-in walk stops a catastrophic regex at its budget with TOO_LARGE (time)', async () => {
    const root = tree(catastrophic)
    const core = startCore({ contentSearch: { ripgrep: null, bounds: { regexBudgetMs: 300 } } })
    const project = await openProject(core, root)
    expect(await project.call('files.search_content', { query: '(a+)+$', regex: true })).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { reason: 'time', budget_ms: 300 } },
    })
  })

  test.skipIf(ripgrep === null)('ripgrep answers the same regex at once: its engine never backtracks', async () => {
    const root = tree(catastrophic)
    const core = startCore()
    const project = await openProject(core, root)
    const page = resultOf((await project.call('files.search_content', { query: '(a+)+$', regex: true })) as never)
    expect(page).toMatchObject({ files: [], done: true, stopped: null, engine: 'ripgrep' })
  })

  test('the total time bound ends a search with stopped: time and what it found so far', async () => {
    const root = tree(catastrophic)
    const core = startCore({ contentSearch: { ripgrep: null, bounds: { regexBudgetMs: 60_000, totalMs: 300 } } })
    const project = await openProject(core, root)
    const page = resultOf((await project.call('files.search_content', { query: '(a+)+$', regex: true })) as never)
    expect(page).toMatchObject({ files: [], done: true, stopped: 'time', next_cursor: null })
  })

  test('a new query stops the one still running: it ends as superseded, the new one answers', async () => {
    const root = tree({ ...catastrophic, 'src/util/math.ts': MATH })
    // A budget far longer than the test: only the newer query can end the first one this soon.
    const core = startCore({ contentSearch: { ripgrep: null, bounds: { regexBudgetMs: 60_000 } } })
    const project = await openProject(core, root)
    const slow = project.call('files.search_content', { query: '(a+)+$', regex: true })
    // The slow search is under way once its worker has compiled the globs and started matching;
    // the dispatcher runs requests in order, so the second arrives after the first started.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const fresh = resultOf((await project.call('files.search_content', { query: 'subtract' })) as never) as ContentPage
    expect(fresh.files.map((f) => f.path)).toEqual(['src/util/math.ts'])
    expect(resultOf((await slow) as never)).toMatchObject({ files: [], done: true, stopped: 'superseded' })
  })
})
