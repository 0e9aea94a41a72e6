import { randomUUID } from 'node:crypto'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { digestOf } from '../src/main/core/store'
import { openProject, startCore } from './support/core'
import { resultOf } from './support/agent'
import { tempDir } from './support/temp'

type SearchPage = {
  snapshot_id: string
  entries: Array<{ path: string; name: string; kind: string }>
  total: number
  next_cursor: string | null
  page_size: number
  truncated: boolean
}

function tree(files: Record<string, string>): string {
  const root = tempDir('retrace-search-')
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

async function setup(files: Record<string, string>) {
  const root = tree(files)
  const core = startCore()
  const project = await openProject(core, root)
  const search = async (payload: Record<string, unknown>) =>
    resultOf((await project.call('files.search', payload)) as never) as SearchPage
  return { core, project, root, search }
}

describe('files.search', () => {
  test('finds a file in a deep folder nobody expanded, by a fuzzy piece of its name', async () => {
    const { search } = await setup({
      'README.md': '# hi\n',
      'src/a/b/c/d/e/quarterly-report.ts': 'x',
      'src/a/b/other.ts': 'y',
    })
    const page = await search({ query: 'qrtrep' })
    expect(page.entries[0]).toEqual({
      path: 'src/a/b/c/d/e/quarterly-report.ts',
      name: 'quarterly-report.ts',
      kind: 'file',
    })
    expect(page.total).toBe(1)
    expect(page.next_cursor).toBeNull()
    expect(page.page_size).toBe(100)
  })

  test('ranks a name match above a path-only match, ties by path; files mode leaves folders out', async () => {
    const { search } = await setup({
      'zeta/util.ts': '',
      'alpha/util.ts': '',
      'util/readme.md': '',
      'lib/utilities/x.ts': '',
      'docs/other.md': '',
    })
    const all = await search({ query: 'util' })
    const paths = all.entries.map((e) => e.path)
    // The exact-name files first (tie broken by path), then the folder named util, and the file
    // reached only through its folders comes after every name match.
    expect(paths.indexOf('alpha/util.ts')).toBeLessThan(paths.indexOf('zeta/util.ts'))
    expect(paths.indexOf('zeta/util.ts')).toBeLessThan(paths.indexOf('util/readme.md'))
    expect(paths).toContain('util')
    expect(paths).not.toContain('docs/other.md')
    const files = await search({ query: 'util', mode: 'files' })
    expect(files.entries.every((e) => e.kind === 'file')).toBe(true)
    expect(files.entries.map((e) => e.path)).not.toContain('util')
    // Same query twice: the same order.
    expect((await search({ query: 'util' })).entries).toEqual(all.entries)
  })

  test('honours .gitignore at every level and never lists .git or the journal temp names', async () => {
    const { search } = await setup({
      '.gitignore': 'build/\n*.log\n/top.txt\n',
      'top.txt': '',
      'sub/top.txt': '',
      'build/out.js': '',
      'app.log': '',
      'app.ts': '',
      'pkg/.gitignore': 'gen.ts\n',
      'pkg/gen.ts': '',
      'pkg/main.ts': '',
      '.git/config': '',
      '.retrace-tmp-mtx_00000000-0000-0000-0000-000000000000-0123abcd': '',
    })
    const page = await search({ query: '' })
    const paths = page.entries.map((e) => e.path).sort()
    expect(paths).toEqual(['.gitignore', 'app.ts', 'pkg', 'pkg/.gitignore', 'pkg/main.ts', 'sub', 'sub/top.txt'])
  })

  test('pages of 100 from one snapshot; a rename after page one makes the old cursor STALE_SNAPSHOT', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 250; i++) files[`notes/note-${String(i).padStart(3, '0')}.md`] = `${i}`
    const { search, project, root } = await setup(files)
    const first = await search({ query: 'note', mode: 'files' })
    expect(first.total).toBe(250)
    expect(first.entries).toHaveLength(100)
    const second = await search({ query: 'note', mode: 'files', cursor: first.next_cursor })
    expect(second.snapshot_id).toBe(first.snapshot_id)
    expect(second.entries).toHaveLength(100)
    expect(new Set([...first.entries, ...second.entries].map((e) => e.path)).size).toBe(200)

    renameSync(join(root, 'notes/note-007.md'), join(root, 'notes/renamed-007.md'))
    const stale = await project.call('files.search', { query: 'note', mode: 'files', cursor: second.next_cursor })
    expect(stale).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    // Page one again sees the rename.
    const again = await search({ query: 'renamed', mode: 'files' })
    expect(again.entries[0]?.path).toBe('notes/renamed-007.md')
  })

  test('a save that only replaces a file keeps the cursor valid', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 150; i++) files[`f/item-${String(i).padStart(3, '0')}.txt`] = `${i}`
    const { search, project, core } = await setup(files)
    const first = await search({ query: 'item' })
    // The journal replaces the file through a rename in its folder: the folder's version moves,
    // the entries stay the same.
    const written = await core.handle({
      request_id: randomUUID(),
      action: 'files.write',
      owner: { project_id: project.projectId },
      idempotency_key: randomUUID(),
      payload: { path: 'f/item-003.txt', content: 'changed', expected_revision: digestOf(Buffer.from('3')) },
    })
    expect(written.status).toBe('ok')
    const second = await search({ query: 'item', cursor: first.next_cursor })
    expect(second.entries).toHaveLength(50)
  })

  test('a cursor of another project, query or mode is refused, and results never cross projects', async () => {
    const a = await setup({ 'secret-plan.md': 'a', ...manyFiles('a') })
    const bRoot = tree({ 'public.md': 'b', ...manyFiles('b') })
    const b = await openProject(a.core, bRoot)
    const fromA = await a.search({ query: 'file' })
    expect(fromA.next_cursor).not.toBeNull()
    const crossed = await b.call('files.search', { query: 'file', cursor: fromA.next_cursor })
    expect(crossed).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    const otherQuery = await a.project.call('files.search', { query: 'fil', cursor: fromA.next_cursor })
    expect(otherQuery).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    const otherMode = await a.project.call('files.search', { query: 'file', mode: 'files', cursor: fromA.next_cursor })
    expect(otherMode).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    const inB = resultOf((await b.call('files.search', { query: 'secret' })) as never) as SearchPage
    expect(inB.total).toBe(0)
  })
})

function manyFiles(prefix: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < 120; i++) files[`${prefix}/file-${i}.txt`] = ''
  return files
}
