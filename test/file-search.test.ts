import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
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

/** A git work tree with `committed` committed, then `untracked` written next to them. */
async function gitSetup(committed: Record<string, string>, untracked: Record<string, string> = {}) {
  const root = tree(committed)
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  git('init', '-q')
  git('add', '-A', '--force')
  git('-c', 'user.email=test@example.invalid', '-c', 'user.name=test', 'commit', '-qm', 'tree')
  for (const [path, content] of Object.entries(untracked)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  const core = startCore()
  const project = await openProject(core, root)
  const search = async (payload: Record<string, unknown>) =>
    resultOf((await project.call('files.search', payload)) as never) as SearchPage
  return { core, project, root, git, search }
}

describe('files.search in a git work tree (the first answer from git, then the walk)', () => {
  test('what .git/info/exclude or core.excludesFile names is never found, neither first nor after the walk', async () => {
    const { root, git, search } = await gitSetup({ 'src/app.ts': '', '.gitignore': '*.log\n' })
    writeFileSync(join(root, '.git/info/exclude'), 'local-notes.md\n')
    writeFileSync(join(root, 'my-excludes'), '*.secret\nmy-excludes\n')
    git('config', 'core.excludesFile', join(root, 'my-excludes'))
    for (const name of ['local-notes.md', 'keys.secret', 'debug.log', 'notes-draft.md'])
      writeFileSync(join(root, name), '')
    // Never listed by the walk, so never by git's answer either.
    writeFileSync(join(root, '.retrace-tmp-mtx_00000000-0000-0000-0000-000000000000-0123abcd'), '')
    mkdirSync(join(root, 'src/.GIT'))
    writeFileSync(join(root, 'src/.GIT/config'), '')
    for (let round = 0; round < 2; round++) {
      const page = await search({ query: '' })
      expect(page.entries.map((e) => e.path).sort()).toEqual(['.gitignore', 'notes-draft.md', 'src', 'src/app.ts'])
    }
  })

  test('the first answer shows only what the walk would list: no deleted, ignored-though-tracked or linked entries', async () => {
    // Decision: a file git tracks although a .gitignore matches it is left out, as the walk leaves
    // it out — the ignore files decide what search shows, tracked or not (VS Code's quick open too).
    const { root, search } = await gitSetup({
      '.gitignore': 'build/\n',
      'build/report-generated.txt': '',
      'report-gone.txt': '',
      'report-kept.txt': '',
    })
    rmSync(join(root, 'report-gone.txt'))
    symlinkSync('report-kept.txt', join(root, 'report-link'))
    const first = await search({ query: 'report', mode: 'files' })
    expect(first.entries.map((e) => e.path)).toEqual(['report-kept.txt'])
    const all = await search({ query: 'report' })
    expect(all.entries.map((e) => [e.path, e.kind]).sort()).toEqual([
      ['report-kept.txt', 'file'],
      ['report-link', 'symlink'],
    ])
  })

  test('a cursor of the git-answered first page keeps working when the walk finds the same entries', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 250; i++) files[`notes/note-${String(i).padStart(3, '0')}.md`] = `${i}`
    const { search } = await gitSetup(files)
    const first = await search({ query: 'note', mode: 'files' })
    expect(first.total).toBe(250)
    const second = await search({ query: 'note', mode: 'files', cursor: first.next_cursor })
    expect(second.snapshot_id).toBe(first.snapshot_id)
    expect(new Set([...first.entries, ...second.entries].map((e) => e.path)).size).toBe(200)
  })

  test('when the walk finds more than git listed (an empty folder), the old cursor is STALE_SNAPSHOT and page one has it', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 150; i++) files[`notes/note-${String(i).padStart(3, '0')}.md`] = `${i}`
    const { root, project, search } = await gitSetup(files)
    mkdirSync(join(root, 'notes-empty'))
    const first = await search({ query: 'note' })
    // git lists files only: the folder holding nothing is not in its answer.
    expect(first.entries.map((e) => e.path)).not.toContain('notes-empty')
    const stale = await project.call('files.search', { query: 'note', cursor: first.next_cursor })
    expect(stale).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    const again = await search({ query: 'note' })
    expect(again.total).toBe(first.total + 1)
    expect((await search({ query: 'notes-empty' })).entries[0]?.path).toBe('notes-empty')
  })

  test('a project that is not a git work tree is walked from the first search (an empty folder is found)', async () => {
    const { root, search } = await setup({ 'a/readme.md': '' })
    mkdirSync(join(root, 'empty-folder'))
    const page = await search({ query: 'empty' })
    expect(page.entries.map((e) => e.path)).toEqual(['empty-folder'])
  })
})

function manyFiles(prefix: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < 120; i++) files[`${prefix}/file-${i}.txt`] = ''
  return files
}
