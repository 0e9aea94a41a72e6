import { createHash, randomBytes } from 'node:crypto'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { medianMs, report } from './measure'
import { send, sendUntyped } from '../test/support/protocol'

/**
 * files.list first page and files.read, each against the bare file-system work a listing or a read
 * cannot avoid (readdir + lstat of every entry; readFile + sha256), measured in the same run.
 */
export async function benchFiles(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-'))
  try {
    const project = join(work, 'project')
    const big = join(project, 'big')
    mkdirSync(big, { recursive: true })
    for (let i = 0; i < 10_000; i++) writeFileSync(join(big, `f${i}.txt`), `${i}`)
    writeFileSync(join(project, 'one-mib.bin'), randomBytes(1024 * 1024))
    writeFileSync(join(project, 'text.ts'), 'export const x = 1\n'.repeat(50_000))

    const core = createCore({
      dataDir: join(work, 'data'),
      host: { shell: 'browser', appVersion: 'bench', log: () => {} },
    })
    const opened = await send(core, 'project.open', { path: project })
    if (opened.status !== 'ok') throw new Error('cannot open bench project')
    const owner = { project_id: (opened.result as { project_id: string }).project_id }
    const call = async (action: string, payload: unknown) => {
      const response = await sendUntyped(core, action, payload, { owner })
      if (response.status !== 'ok') throw new Error(`${action} failed: ${JSON.stringify(response.error)}`)
      return response
    }

    const listing = await medianMs(() => call('files.list', { path: 'big' }), 9, 2)
    const bareListing = await medianMs(
      async () => {
        const names = await readdir(big)
        await Promise.all(names.map((name) => lstat(join(big, name))))
      },
      9,
      2,
    )
    report('files.list first page of a 10 000-entry folder vs readdir+lstat', listing, bareListing)

    for (const [name, path] of [
      ['files.read 1 MiB binary vs readFile+sha256', 'one-mib.bin'],
      ['files.read 0.9 MiB text vs readFile+sha256', 'text.ts'],
    ] as const) {
      const subject = await medianMs(() => call('files.read', { path }))
      const baseline = await medianMs(async () =>
        createHash('sha256')
          .update(await readFile(join(project, path)))
          .digest(),
      )
      report(name, subject, baseline)
    }
    core.dispose()
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
