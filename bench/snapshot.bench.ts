import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSnapshotService } from '../src/main/core/snapshot'
import { report } from './measure'

/** Builds a committed repository of `files` small files in folders of 200. */
function buildRepository(root: string, files: number): void {
  execFileSync('git', ['init', '-q', '-b', 'main', root])
  for (let folder = 0; folder * 200 < files; folder++) {
    const dir = join(root, 'src', `d${folder}`)
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 200 && folder * 200 + i < files; i++) {
      writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${folder * 200 + i}\n`)
    }
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, '-c', 'user.email=b@example.com', '-c', 'user.name=bench', ...args], {
      stdio: 'ignore',
    })
  git('add', '-A')
  git('commit', '-q', '-m', 'initial')
}

const elapsed = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

/**
 * Spec 06 / issue 16: `track()` on a large repository with a few changes, against `git add -A &&
 * git write-tree` run by hand on a copy of the same shadow repository (same alternates seed, same
 * index, same settings) — target ≤ 1.5×; and what a step with no changes costs, against one
 * `git status` of the same folder (what any look at the worktree costs).
 */
export async function benchSnapshots(
  files = Number(process.env.RETRACE_BENCH_SNAPSHOT_FILES ?? 100_000),
): Promise<void> {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'retrace-bench-snapshot-')))
  try {
    const root = join(work, 'project')
    buildRepository(root, files)
    const service = createSnapshotService({ dataDir: join(work, 'data'), maintenance: false })
    const project = service.project({ project_id: 'prj_bench', root })
    const first = await project.track()
    if (first.kind !== 'snapshot') throw new Error(`no snapshot: ${first.message}`)
    const baselineDir = join(work, 'baseline.git')
    cpSync(project.gitDir, baselineDir, { recursive: true })
    const byHand = (...args: string[]) =>
      execFileSync('git', [`--git-dir=${baselineDir}`, `--work-tree=${root}`, ...args], { stdio: 'pipe' })

    // A few changes per step: three files modified, one created or deleted in turn.
    let round = 0
    const change = () => {
      round += 1
      for (const i of [1, 2, 3]) writeFileSync(join(root, 'src', `d${i}`, 'f7.ts'), `export const changed = ${round}\n`)
      if (round % 2 === 1) writeFileSync(join(root, 'src', 'd5', 'created.ts'), `export const r = ${round}\n`)
      else rmSync(join(root, 'src', 'd5', 'created.ts'))
    }
    const tracked: number[] = []
    const manual: number[] = []
    for (let run = 0; run < 14; run++) {
      change()
      const timeTrack = async () => {
        const started = process.hrtime.bigint()
        const capture = await project.track()
        if (capture.kind !== 'snapshot') throw new Error(`no snapshot: ${capture.message}`)
        return elapsed(started)
      }
      const timeByHand = () => {
        const started = process.hrtime.bigint()
        byHand('add', '-A')
        byHand('write-tree')
        return elapsed(started)
      }
      // Alternating who goes first: neither side always finds the page cache warmed by the other.
      let trackMs: number
      let manualMs: number
      if (run % 2 === 0) {
        trackMs = await timeTrack()
        manualMs = timeByHand()
      } else {
        manualMs = timeByHand()
        trackMs = await timeTrack()
      }
      if (run >= 3) {
        tracked.push(trackMs)
        manual.push(manualMs)
      }
    }
    report(
      `snapshot: track() of ${files} files, 4 changed, vs add -A + write-tree`,
      median(tracked),
      median(manual),
      1.5,
    )

    const unchanged: number[] = []
    const status: number[] = []
    for (let run = 0; run < 14; run++) {
      let started = process.hrtime.bigint()
      await project.track()
      const trackMs = elapsed(started)
      started = process.hrtime.bigint()
      execFileSync('git', ['-C', root, '--no-optional-locks', 'status', '--porcelain'], { stdio: 'pipe' })
      const statusMs = elapsed(started)
      if (run >= 3) {
        unchanged.push(trackMs)
        status.push(statusMs)
      }
    }
    report(`snapshot: a no-change step, ${files} files, vs git status`, median(unchanged), median(status))
    service.dispose()
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** A no-change step on an ordinary project: the overhead a turn sees per step. */
export async function benchSnapshotSmall(): Promise<void> {
  await benchSnapshots(2_000)
}
