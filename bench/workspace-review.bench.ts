import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { medianPairMs, report } from './measure'
import { sendUntyped } from '../test/support/protocol'

const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }

/**
 * Review's git workspace, sub-scope Commit (issue: "Last commit" took 6.5–7.9 s for 157 files):
 * the first page of a 1 000-file commit against what git itself needs to answer the same question
 * on the same tree — `git diff --numstat HEAD~1 HEAD` plus `git status --porcelain=v2`. Each run
 * uses a fresh snapshot (the list is computed, not served from memory). Budget ≤ 5×.
 */
export async function benchWorkspaceReview(files = 1_000): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-workspace-'))
  try {
    const root = join(work, 'project')
    mkdirSync(root)
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    git('init', '-q')
    git('config', 'user.email', 'bench@example.invalid')
    git('config', 'user.name', 'bench')
    for (let i = 0; i < files; i++) {
      mkdirSync(join(root, `src/m${i % 20}`), { recursive: true })
      writeFileSync(join(root, `src/m${i % 20}/f${i}.ts`), `export const value${i} = ${i}\n// line two\n`)
    }
    git('add', '-A')
    git('commit', '-qm', 'base')
    for (let i = 0; i < files; i++) {
      writeFileSync(join(root, `src/m${i % 20}/f${i}.ts`), `export const value${i} = ${i + 1}\n// line two\n// three\n`)
    }
    git('commit', '-qam', 'change every file')

    const core = createCore({ dataDir: join(work, 'data'), host, agent: { env: {}, ollamaUrl: null } })
    const call = async (action: string, owner: object, payload: unknown) => {
      const response = await sendUntyped(core, action, payload, { owner })
      if (response.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(response.error)}`)
      return response.result as Record<string, unknown>
    }
    const project = (await call('project.open', {}, { path: root })) as { project_id: string }
    const owner = { project_id: project.project_id }
    // The very first page also writes every pinned copy once (later pages of other queries reuse them).
    const coldStarted = process.hrtime.bigint()
    await call('review.files', owner, { scope: 'workspace', sub_scope: 'commit' })
    const coldMs = Number(process.hrtime.bigint() - coldStarted) / 1e6
    const [pageMs, gitMs] = await medianPairMs(
      // A first page (no cursor) computes a new snapshot every time.
      () => call('review.files', owner, { scope: 'workspace', sub_scope: 'commit' }),
      () => {
        git('diff', '--numstat', 'HEAD~1', 'HEAD')
        git('status', '--porcelain=v2')
      },
      7,
      1,
    )
    report(
      `review.files workspace "Last commit", first page of ${files} files vs git diff --numstat + status`,
      pageMs,
      gitMs,
      5,
    )
    report('  the same first page cold (every pin written) vs the same git commands', coldMs, gitMs)
    core.dispose()
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
