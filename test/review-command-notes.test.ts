import { execFileSync } from 'node:child_process'
import { existsSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { agentFixture, resultOf } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { send } from './support/protocol'
import { tempDir } from './support/temp'

/**
 * Issue 23 item 21 in Review: This turn says what the turn's commands changed that is not among
 * its rows — held files with their reason, files left out of the snapshots, a step with no
 * snapshot — and never lists a held file as the commands' change.
 */

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})
async function fake() {
  const server = await startFakeOpenAI()
  fakes.push(server)
  return server
}

function gitProject() {
  const root = realpathSync(tempDir('retrace-review-notes-'))
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(root, 'keep.txt'), 'keep\n')
  git('add', '-A')
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')
  return root
}

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', input: { command, timeout_ms: 20_000 } }],
})
const done = { kind: 'stream' as const, steps: [{ text: 'Done.' }] }

type ReviewPage = {
  files: Array<{ path: string; source: string }>
  next_cursor: string | null
  command_notes?: {
    held: Array<{ path: string; reason: string; folder: boolean; files: number }>
    held_files: number
    excluded: Array<{ reason: string; files: number }>
    unrecorded?: { reason: string; message: string }
  }
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

describe("This turn says what the turn's commands changed that is not among its rows", () => {
  test('held files by reason (yours one by one, dependency folders and nested repositories per folder) and excluded ones', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          bash(
            'c1',
            [
              'mkdir -p node_modules/x web/node_modules/y .venv/lib sub',
              'echo 1 > node_modules/x/index.js',
              'echo 2 > node_modules/x/package.json',
              'echo 3 > web/node_modules/y/index.js',
              'echo 4 > .venv/lib/y.py',
              'echo a > sub/a.txt',
              'git init -q fresh && echo f > fresh/f.txt',
              'echo out > out.txt',
              'while [ ! -e mine.txt ]; do sleep 0.02; done',
            ].join(' && '),
          ),
        ],
      },
      { kind: 'stream', steps: [bash('c2', 'git -C sub init -q && echo b > sub/a.txt')] },
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('install')
    await until(() => existsSync(join(root, 'out.txt')), 'the command to run')
    // The person saves a file through Retrace while the command runs: held as theirs.
    const written = await send(
      agent.core,
      'files.write',
      { path: 'mine.txt', content: 'mine\n', expected_revision: null },
      { owner: { project_id: agent.project.projectId } },
    )
    expect(written.status).toBe('ok')
    await agent.finished(turnId)

    const page = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as ReviewPage
    // The rows are the commands' own change, never a held file.
    expect(page.files.map((f) => [f.path, f.source])).toEqual([['out.txt', 'command']])
    expect(page.command_notes).toEqual({
      held: [
        { path: 'mine.txt', reason: 'person', folder: false, files: 1 },
        { path: '.venv', reason: 'ignored-folder', folder: true, files: 1 },
        { path: 'node_modules', reason: 'ignored-folder', folder: true, files: 2 },
        { path: 'sub', reason: 'nested-repository', folder: true, files: 1 },
        { path: 'web/node_modules', reason: 'ignored-folder', folder: true, files: 1 },
      ],
      held_files: 6,
      excluded: [{ reason: 'nested-repository', files: 1 }],
    })

    // The notes are about the turn, not the rows shown: a filter keeps them.
    const commandsOnly = resultOf(
      await agent.session('review.files', { scope: 'turn', turn_id: turnId, filter: { source: 'command' } }),
    ) as ReviewPage
    expect(commandsOnly.files.map((f) => f.path)).toEqual(['out.txt'])
    expect(commandsOnly.command_notes?.held_files).toBe(6)
    // The branch scope lists no command rows, so it carries no notes either.
    const branch = resultOf(await agent.session('review.files', { scope: 'branch' })) as ReviewPage
    expect(branch.command_notes).toBeUndefined()
  })

  test('a turn whose only change is over the snapshot size limit has no rows and says so', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue({ kind: 'stream', steps: [bash('c1', 'head -c 3145728 /dev/zero > big.bin')] }, done)
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('make a big file')
    await agent.finished(turnId)
    const page = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as ReviewPage
    expect(page.files).toEqual([])
    expect(page.command_notes).toEqual({ held: [], held_files: 0, excluded: [{ reason: 'large', files: 1 }] })
  })

  test('a command step whose snapshot failed is named with its reason', async () => {
    const root = gitProject()
    const dataDir = tempDir('retrace-review-notes-data-')
    const llm = await fake()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [bash('c1', `echo a > a.txt && for f in ${dataDir}/snapshot/*/*/index; do echo junk > "$f"; done`)],
      },
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'auto', dataDir })
    const turnId = await agent.prompt('break it')
    await agent.finished(turnId)
    const page = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as ReviewPage
    expect(page.command_notes?.unrecorded?.reason).toBe('failed')
    expect(page.command_notes?.unrecorded?.message).not.toBe('')
  })

  test('a turn whose commands changed only their own files carries no notes', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue({ kind: 'stream', steps: [bash('c1', 'echo hi > side.txt')] }, done)
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('write')
    await agent.finished(turnId)
    const page = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as ReviewPage
    expect(page.files.map((f) => f.path)).toEqual(['side.txt'])
    expect(page.command_notes).toBeUndefined()
  })
})
