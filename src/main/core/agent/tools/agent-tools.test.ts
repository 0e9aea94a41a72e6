import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../../test/support/temp'
import { DEFAULT_JOURNAL_LIMITS } from '../../journal'
import { bashTool, killBackgroundProcesses } from './bash'
import type { ToolContext, ToolResult } from './define-tool'
import { globTool } from './glob'
import { grepTool } from './grep'
import { listTool } from './list'
import { readTool } from './read'

function context(
  root: string,
  signal = new AbortController().signal,
): ToolContext & { seen: Map<string, string | null> } {
  const seen = new Map<string, string | null>()
  return {
    root,
    dataDir: join(root, '.retrace-data'),
    signal,
    callId: 'call_1',
    limits: DEFAULT_JOURNAL_LIMITS,
    reads: { get: (path) => seen.get(path), set: (path, digest) => void seen.set(path, digest) },
    mutate: () => {
      throw new Error('read-only tools never mutate')
    },
    seen,
  }
}

const output = (result: ToolResult) => {
  if (result.kind !== 'ok') throw new Error(`${result.code}: ${result.message}`)
  return result.output
}

function project() {
  const root = tempDir('retrace-tools-')
  mkdirSync(join(root, 'src', 'deep'), { recursive: true })
  mkdirSync(join(root, 'build'))
  mkdirSync(join(root, '.git'))
  mkdirSync(join(root, '.retrace-data'))
  writeFileSync(join(root, '.gitignore'), 'build/\n*.log\n')
  writeFileSync(join(root, 'src', '.gitignore'), 'generated.ts\n')
  writeFileSync(join(root, 'src', 'main.ts'), 'export const main = () => greet("world")\n')
  writeFileSync(join(root, 'src', 'generated.ts'), 'export const greet = 1\n')
  writeFileSync(join(root, 'src', 'deep', 'util.ts'), 'export function greet(name: string) {\n  return name\n}\n')
  writeFileSync(join(root, 'build', 'out.js'), 'greet()\n')
  writeFileSync(join(root, 'debug.log'), 'greet\n')
  writeFileSync(join(root, '.git', 'HEAD'), 'greet\n')
  writeFileSync(join(root, '.retrace-data', 'secret'), 'greet\n')
  writeFileSync(join(root, 'blob.bin'), Buffer.from([0, 1, 2, 103, 114, 101, 101, 116]))
  return root
}

describe('read-only tools', () => {
  test('list shows a tree that honours nested .gitignore files and never .git or the data directory', async () => {
    const root = project()
    const text = output(await listTool.execute({}, context(root)))
    expect(text).toContain('src/')
    expect(text).toContain('    util.ts')
    expect(text).not.toMatch(/build|debug\.log|generated\.ts|\.git\/|HEAD|\.retrace-data|secret/)
    expect(output(await listTool.execute({ path: 'src' }, context(root)))).toMatch(/^src\/\n {2}deep\//)
    const escape = await listTool.execute({ path: '../' }, context(root))
    expect(escape).toMatchObject({ kind: 'error', code: 'PERMISSION_DENIED' })
    expect(await listTool.execute({ path: '.git' }, context(root))).toMatchObject({ code: 'PERMISSION_DENIED' })
  })

  test('glob matches below a folder, newest first, and says when nothing matched', async () => {
    const root = project()
    execFileSync('touch', ['-d', '2020-01-01', join(root, 'src', 'main.ts')])
    const text = output(await globTool.execute({ pattern: '**/*.ts' }, context(root)))
    expect(text.split('\n')).toEqual(['src/deep/util.ts', 'src/main.ts'])
    expect(output(await globTool.execute({ pattern: '*.ts', path: 'src/deep' }, context(root)))).toBe(
      'src/deep/util.ts',
    )
    expect(output(await globTool.execute({ pattern: '*.py' }, context(root)))).toContain('No files match')
  })

  test('grep finds matches by file, skips binary and ignored files, filters by include, refuses bad regexes', async () => {
    const root = project()
    const text = output(await grepTool.execute({ pattern: 'greet' }, context(root)))
    expect(text).toBe(
      [
        'src/deep/util.ts:1: export function greet(name: string) {',
        '',
        'src/main.ts:1: export const main = () => greet("world")',
      ].join('\n'),
    )
    expect(output(await grepTool.execute({ pattern: 'return', include: 'util.ts' }, context(root)))).toBe(
      'src/deep/util.ts:2:   return name',
    )
    expect(await grepTool.execute({ pattern: '(' }, context(root))).toMatchObject({
      kind: 'error',
      code: 'INVALID_REQUEST',
    })
  })

  test("list, glob and grep leave out what git's info/exclude and excludes file ignore, as quick open does", async () => {
    const root = tempDir('retrace-tools-git-')
    execFileSync('git', ['init', '-q', root])
    mkdirSync(join(root, 'scratch'))
    writeFileSync(join(root, 'scratch', 'notes.ts'), 'greet\n')
    writeFileSync(join(root, 'kept.ts'), 'greet\n')
    writeFileSync(join(root, 'old.ts.bak'), 'greet\n')
    writeFileSync(join(root, '.git', 'info', 'exclude'), 'scratch/\n')
    const personal = join(tempDir('retrace-tools-excludes-'), 'ignore')
    writeFileSync(personal, '*.bak\n')
    execFileSync('git', ['-C', root, 'config', 'core.excludesFile', personal])
    expect(output(await listTool.execute({}, context(root)))).not.toMatch(/scratch|\.bak/)
    expect(output(await globTool.execute({ pattern: '**/*' }, context(root))).split('\n')).toEqual(['kept.ts'])
    expect(output(await grepTool.execute({ pattern: 'greet' }, context(root)))).toBe('kept.ts:1: greet')
  })

  test('grep and list stop at their bounds and say so', async () => {
    const root = tempDir('retrace-tools-many-')
    for (let i = 0; i < 600; i++) writeFileSync(join(root, `f${String(i).padStart(3, '0')}.txt`), 'hit\n')
    expect(output(await listTool.execute({}, context(root)))).toContain('cut at 500 entries')
    const grep = output(await grepTool.execute({ pattern: 'hit' }, context(root)))
    expect(grep.split('\n').filter((l) => l.includes(':1: hit'))).toHaveLength(100)
    expect(grep).toContain('more than 100 matches')
  })

  test('read numbers lines, pages by offset, names binary files and records the baseline', async () => {
    const root = project()
    const ctx = context(root)
    expect(output(await readTool.execute({ file_path: 'src/deep/util.ts', offset: 2, limit: 1 }, ctx))).toBe(
      '2\t  return name\n… 1 more lines; read again with offset=3.',
    )
    expect(ctx.seen.get('src/deep/util.ts')).toMatch(/^sha256:/)
    expect(output(await readTool.execute({ file_path: join(root, 'blob.bin') }, ctx))).toMatch(/^Binary file blob\.bin/)
    expect(await readTool.execute({ file_path: 'missing.txt' }, ctx)).toMatchObject({ code: 'NOT_FOUND' })
    expect(ctx.seen.get('missing.txt')).toBeNull()
    expect(await readTool.execute({ file_path: '/etc/passwd' }, ctx)).toMatchObject({ code: 'PERMISSION_DENIED' })
  })
})

/** Running, not a zombie: a killed grandchild may wait for a reaper that containers lack. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/.test(stat)
  } catch {
    return false
  }
}

describe('bash', () => {
  test('runs in the project folder and reports output and exit code', async () => {
    const root = tempDir('retrace-bash-')
    const result = output(await bashTool.execute({ command: 'pwd; echo oops >&2; exit 3' }, context(root)))
    expect(result).toContain(root)
    expect(result).toContain('oops')
    expect(result).toMatch(/exit code 3$/)
  })

  test('caps long output, keeping head and tail', async () => {
    const result = output(
      await bashTool.execute({ command: 'for i in $(seq 1 20000); do echo line-$i; done' }, context(tempDir())),
    )
    expect(result.length).toBeLessThan(32_000)
    expect(result).toContain('line-1\n')
    expect(result).toContain('line-20000')
    expect(result).toContain('omitted')
  })

  test('a timeout stops the whole process group, grandchildren included', async () => {
    const root = tempDir('retrace-bash-')
    const started = Date.now()
    const result = await bashTool.execute(
      { command: 'sleep 30 & echo $! > child.pid; sleep 30; wait', timeout_ms: 300 },
      context(root),
    )
    expect(result).toMatchObject({ kind: 'error', code: 'TIMEOUT' })
    expect(Date.now() - started).toBeLessThan(5_000)
    const pid = Number(readFileSync(join(root, 'child.pid'), 'utf8'))
    await expect.poll(() => alive(pid)).toBe(false)
  })

  test('abort mid-run resolves promptly as "aborted — result unknown" and nothing survives', async () => {
    const root = tempDir('retrace-bash-')
    const controller = new AbortController()
    const running = bashTool.execute(
      { command: 'sleep 30 & echo $! > child.pid; sleep 30; touch late.txt' },
      context(root, controller.signal),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ kind: 'error', code: 'ABORTED' })
    expect(result.kind === 'error' && result.message).toContain('aborted — result unknown')
    const { existsSync } = await import('node:fs')
    const pid = Number(readFileSync(join(root, 'child.pid'), 'utf8'))
    await expect.poll(() => alive(pid)).toBe(false)
    expect(existsSync(join(root, 'late.txt'))).toBe(false)
  })

  test('a background command returns at once and is stopped on shutdown', async () => {
    const root = tempDir('retrace-bash-')
    const ctx = context(root)
    const result = output(await bashTool.execute({ command: 'echo started; sleep 30', run_in_background: true }, ctx))
    const pid = Number(/pid (\d+)/.exec(result)?.[1])
    expect(alive(pid)).toBe(true)
    await killBackgroundProcesses()
    await expect.poll(() => alive(pid)).toBe(false)
  })
})

describe('containment and precedence', () => {
  test('a folder symlink leading outside the project is refused; a nested .gitignore can re-include', async () => {
    const root = project()
    const outside = tempDir('retrace-outside-')
    writeFileSync(join(outside, 'secret.txt'), 'TOPSECRET\n')
    const { symlinkSync } = await import('node:fs')
    symlinkSync(outside, join(root, 'link'))
    expect(await listTool.execute({ path: 'link' }, context(root))).toMatchObject({ code: 'PERMISSION_DENIED' })
    expect(await grepTool.execute({ pattern: 'TOPSECRET', path: 'link' }, context(root))).toMatchObject({
      code: 'PERMISSION_DENIED',
    })
    expect(output(await grepTool.execute({ pattern: 'TOPSECRET' }, context(root)))).toContain('No matches')

    writeFileSync(join(root, '.gitignore'), '*.gen\n')
    mkdirSync(join(root, 'a'))
    writeFileSync(join(root, 'a', '.gitignore'), '!keep.gen\n')
    writeFileSync(join(root, 'a', 'keep.gen'), 'x\n')
    writeFileSync(join(root, 'a', 'drop.gen'), 'x\n')
    const text = output(await globTool.execute({ pattern: '**/*.gen' }, context(root)))
    expect(text.split('\n')).toEqual(['a/keep.gen'])
  })

  test('a stopped search is an error, not an empty success; bash does not wait for leftover background jobs', async () => {
    const root = project()
    const controller = new AbortController()
    controller.abort()
    expect(await listTool.execute({}, context(root, controller.signal))).toMatchObject({ code: 'ABORTED' })
    expect(await grepTool.execute({ pattern: 'x' }, context(root, controller.signal))).toMatchObject({
      code: 'ABORTED',
    })
    const started = Date.now()
    const result = output(await bashTool.execute({ command: 'sleep 5 & echo started' }, context(root)))
    expect(result).toContain('started')
    expect(result).toMatch(/exit code 0$/)
    expect(Date.now() - started).toBeLessThan(3_000)
    const failed = await bashTool.execute(
      { command: 'true', run_in_background: true },
      { ...context(join(root, 'missing-folder')), dataDir: join(root, '.retrace-data') },
    )
    expect(failed).toMatchObject({ kind: 'error', code: 'INTERNAL' })
  })
})
