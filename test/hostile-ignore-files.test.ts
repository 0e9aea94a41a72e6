import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { EventFrame } from '../src/shared/protocol'
import { agentFixture, eventLog, resultOf, toolParts } from './support/agent'
import { openProject, request, startCore } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'

/*
 * Issue 23 review: ignore files a hostile repository names or ships are data, read the way a
 * `.gitignore` inside the walk is read — never a FIFO or a device (a blocking open or a read that
 * never ends would hang the engine's event loop: `/dev/zero` is endless, a FIFO waits for a writer
 * forever), never through a link inside the project, never more than 1 MiB.
 *
 * Each FIFO here gets a "rescuer": a real `sh` that, after RESCUE_MS, keeps opening it for writing
 * (and closing it at once), leaving a marker file each time an open returned — which only happens
 * when someone opened the FIFO for reading. No marker at the end proves the engine never did; an
 * engine that does block on it is freed within half a second instead of hanging the test for good
 * (the watcher reads a changed ignore file again, and a FIFO written to has changed).
 */

const RESCUE_MS = 2_000

const fakes: FakeLlmServer[] = []
const rescuers: ChildProcess[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
  for (const rescuer of rescuers.splice(0)) if (rescuer.exitCode === null) rescuer.kill('SIGKILL')
})

/** A FIFO at `path` and its rescuer; `untouched()` waits past the rescue time, then says whether any reader came. */
function fifoWithRescuer(path: string): { untouched(): Promise<boolean> } {
  execFileSync('mkfifo', [path])
  const started = Date.now()
  const marker = `${path}.opened`
  const script = `sleep ${RESCUE_MS / 1000}; while :; do : > "$0" && : > "$1"; sleep 0.5; done`
  rescuers.push(spawn('sh', ['-c', script, path, marker], { stdio: 'ignore' }))
  return {
    async untouched() {
      await sleep(Math.max(0, started + RESCUE_MS + 500 - Date.now()))
      return !existsSync(marker)
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('ignore files are read as data, never from a FIFO, a device or through a link', () => {
  test('the file watcher opens no .gitignore that is a link, nor a .git/info/exclude that is a FIFO', async () => {
    const root = realpathSync(tempDir('retrace-ignore-'))
    const outside = realpathSync(tempDir('retrace-ignore-outside-'))
    mkdirSync(join(root, 'sub'))
    // A link, as a cloned repository can hold one (git itself never follows an in-tree .gitignore link).
    symlinkSync(join(outside, 'fifo'), join(root, 'sub', '.gitignore'))
    const fifo = fifoWithRescuer(join(outside, 'fifo'))
    symlinkSync(join(outside, 'root-fifo'), join(root, '.gitignore'))
    const second = fifoWithRescuer(join(outside, 'root-fifo'))
    // An unpacked archive can hold any file type, in .git too.
    mkdirSync(join(root, '.git', 'info'), { recursive: true })
    const third = fifoWithRescuer(join(root, '.git', 'info', 'exclude'))
    writeFileSync(join(root, 'a.txt'), 'a\n')
    const core = startCore()
    const events = eventLog(core)
    const project = await openProject(core, root)
    // The explorer's first listing starts the project's watcher.
    resultOf(await project.call('files.list', { path: '' }))
    resultOf(await project.call('files.list', { path: 'sub' }))
    await sleep(300)
    writeFileSync(join(root, 'b.md'), 'b\n')
    writeFileSync(join(root, 'sub', 'c.md'), 'c\n')
    const changed = (await events.waitFor(
      (f: EventFrame) => f.event === 'files.changed' && JSON.stringify(f.data).includes('sub/c.md'),
    )) as EventFrame
    expect(JSON.stringify(changed.data)).toContain('sub/c.md')
    expect((await core.handle(request('app.info', {}))).status).toBe('ok')
    expect(await fifo.untouched()).toBe(true)
    expect(await second.untouched()).toBe(true)
    expect(await third.untouched()).toBe(true)
  })

  test("a repository's core.excludesFile naming a FIFO: the agent's list, glob and grep answer and never open it", async () => {
    const root = realpathSync(tempDir('retrace-ignore-'))
    const outside = realpathSync(tempDir('retrace-ignore-outside-'))
    execFileSync('git', ['-C', root, 'init', '-q'])
    writeFileSync(join(root, 'a.txt'), 'hello\n')
    writeFileSync(join(root, 'b.md'), 'hello\n')
    const fifo = fifoWithRescuer(join(outside, 'excludes'))
    execFileSync('git', ['-C', root, 'config', 'core.excludesFile', join(outside, 'excludes')])
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'call_list', name: 'list', input: {} },
              { id: 'call_glob', name: 'glob', input: { pattern: '*' } },
              { id: 'call_grep', name: 'grep', input: { pattern: 'hello' } },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    // Step snapshots run git, which reads the excludes file itself (git's own open, in its own
    // process and under the runner's timeout): kept out so the FIFO's reader can only be the engine.
    resultOf(await agent.project.call('settings.snapshots', { enabled: false }))
    const turnId = await agent.prompt('look around')
    expect((await agent.finished(turnId)).status).toBe('complete')
    const byId = new Map(toolParts(await agent.turn(turnId)).map((p) => [p.id, p]))
    expect(byId.get('call_list')).toMatchObject({ state: 'completed' })
    expect(byId.get('call_list')?.output).toContain('a.txt')
    expect(byId.get('call_glob')).toMatchObject({ state: 'completed' })
    expect(byId.get('call_grep')?.output).toContain('a.txt:1: hello')
    expect(await fifo.untouched()).toBe(true)
  })
})
