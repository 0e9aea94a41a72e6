import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { report } from './measure'

/** Files in the generated tree; RETRACE_BENCH_CONTENT_FILES shrinks it for a quick look. */
const FILES = Number(process.env.RETRACE_BENCH_CONTENT_FILES ?? 100_000)

/**
 * `FILES` committed source-like files (≈ 0.5 KiB each) in folders of 20 (10 packages × FILES/200): every 100th file calls
 * `subtractVector` (a common hit: the first page fills early), one file in the whole tree defines
 * `rareNeedleSymbol` (a rare hit: the first page is the whole search). Plus an ignored node_modules.
 */
function makeTree(root: string): void {
  const made = new Set<string>()
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 10}`, `mod${Math.floor(i / 200)}`)
    if (!made.has(dir)) mkdirSync(dir, { recursive: true })
    made.add(dir)
    const lines = [
      `import { helper${i % 97} } from '../shared/helper${i % 97}'`,
      '',
      `export function compute${i}(input: number[]): number {`,
      '  let total = 0',
      '  for (const value of input) total += helper(value) * 2',
      i % 100 === 0 ? '  return subtractVector(total, input.length)' : '  return total',
      '}',
      i === Math.floor(FILES / 2) ? 'export const rareNeedleSymbol = 1' : `export const marker${i} = ${i}`,
      `// ${'lorem ipsum dolor sit amet '.repeat(6)}`,
      '',
    ]
    writeFileSync(join(dir, `file${i}.ts`), lines.join('\n'))
  }
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true })
  for (let f = 0; f < 1000; f++) writeFileSync(join(root, 'node_modules', 'dep', `x${f}.js`), 'subtractVector()\n')
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n')
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' })
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.email=bench@example.invalid', '-c', 'user.name=bench', 'commit', '-qm', 'tree')
}

/**
 * `files.search_content`'s first page on a `FILES`-file git tree against `git grep -n` (the whole
 * answer) on the same tree (issue 25: target ≤ 1.5×), for a common and a rare literal. Subject and
 * baseline run alternately, so a shared machine's changing load hits both alike; a new engine per
 * run, so no answer is served from a previous one.
 */
export async function benchContentSearch(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-content-'))
  try {
    const project = join(work, 'project')
    makeTree(project)
    const core = createCore({
      dataDir: join(work, `data-${randomUUID()}`),
      host: { shell: 'browser', appVersion: 'bench', log: () => {} },
    })
    try {
      const opened = await core.handle({
        request_id: randomUUID(),
        action: 'project.open',
        owner: {},
        payload: { path: project },
      })
      if (opened.status !== 'ok') throw new Error('cannot open bench project')
      const owner = { project_id: (opened.result as { project_id: string }).project_id }
      let engine = ''
      const search = async (query: string, cursor?: string) => {
        const response = await core.handle({
          request_id: randomUUID(),
          action: 'files.search_content',
          owner,
          payload: { query, match_case: true, ...(cursor !== undefined ? { cursor } : {}) },
        })
        if (response.status !== 'ok') throw new Error(JSON.stringify(response.error))
        return response.result as { engine: string; next_cursor: string | null }
      }
      const firstPage = async (query: string) => {
        const page = await search(query)
        engine = page.engine
        return page.next_cursor
      }
      /** The search goes on after its first page; it ends before the baseline runs, never beside it. */
      const drain = async (query: string, cursor: string | null) => {
        for (let next = cursor; next !== null;) next = (await search(query, next)).next_cursor
      }
      const gitGrep = (query: string) =>
        execFileSync('git', ['grep', '-n', '-F', '-e', query], { cwd: project, maxBuffer: 256 * 1024 * 1024 })
      for (const [label, query] of [
        ['common', 'subtractVector'],
        ['rare', 'rareNeedleSymbol'],
      ] as const) {
        // Warm the page cache for both sides: cold disk reads would measure the disk, not the search.
        gitGrep(query)
        await drain(query, await firstPage(query))
        const subject: number[] = []
        const baseline: number[] = []
        for (let run = 0; run < 5; run++) {
          let started = process.hrtime.bigint()
          gitGrep(query)
          baseline.push(Number(process.hrtime.bigint() - started) / 1e6)
          started = process.hrtime.bigint()
          const next = await firstPage(query)
          subject.push(Number(process.hrtime.bigint() - started) / 1e6)
          await drain(query, next)
        }
        const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? NaN
        report(
          `files.search_content first page (${engine}, ${label}), ${FILES / 1000}k files vs git grep -n`,
          median(subject),
          median(baseline),
          1.5,
        )
      }
    } finally {
      core.dispose()
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
