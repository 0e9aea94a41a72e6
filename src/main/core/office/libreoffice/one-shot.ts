import { mkdtemp, readdir, rename, rm } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { EXPORT_FILTERS } from '../formats'
import type { ConversionJob, ConversionOutcome } from './types'
import { createProfile, HEADLESS_ARGUMENTS } from './profile'
import { exited, killGroup, spawnGroup, tail } from './process'

/**
 * One `soffice --headless --convert-to` call in a fresh profile: the slow path (LibreOffice starts
 * for each call) that always works when LibreOffice is installed, used when the resident listener
 * is unavailable or crashed on this document.
 */
export async function convertOneShot(
  soffice: string,
  workDir: string,
  job: ConversionJob,
  env: NodeJS.ProcessEnv,
): Promise<ConversionOutcome> {
  const profile = await createProfile()
  const outDir = await mkdtemp(join(workDir, 'out-'))
  try {
    const target = job.target === 'pdf' ? 'pdf' : `${job.target}:${EXPORT_FILTERS[job.target] ?? ''}`
    const child = spawnGroup(
      soffice,
      [
        profile.argument,
        ...HEADLESS_ARGUMENTS,
        ...(job.inputFilter ? [`--infilter=${job.inputFilter.name}:${job.inputFilter.options}`] : []),
        '--convert-to',
        target,
        '--outdir',
        outDir,
        job.input,
      ],
      { env: profile.environment(env), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const stderr = tail(child.stderr)
    const stdout = tail(child.stdout)
    const timer = setTimeout(() => killGroup(child), job.timeoutMs)
    const abort = () => killGroup(child)
    job.signal?.addEventListener('abort', abort, { once: true })
    const { code, signal } = await exited(child)
    clearTimeout(timer)
    job.signal?.removeEventListener('abort', abort)
    if (job.signal?.aborted) return { kind: 'failed', reason: 'aborted', message: 'The conversion was cancelled.' }
    if (signal === 'SIGKILL') {
      return { kind: 'failed', reason: 'timeout', message: `LibreOffice did not finish within ${job.timeoutMs} ms.` }
    }
    const expected = `${basename(job.input, extname(job.input))}.${job.target}`
    const produced = (await readdir(outDir)).find((name) => name === expected)
    if (!produced) {
      const said = `${stdout()}\n${stderr()}`
      const reason = /no export filter/i.test(said) ? 'wrong-family' : 'load-failed'
      return {
        kind: 'failed',
        reason,
        message: `LibreOffice could not convert the document (exit ${code ?? signal}): ${said.trim().slice(-300)}`,
      }
    }
    await rename(join(outDir, produced), job.output)
    return { kind: 'ok', engine: 'one-shot' }
  } finally {
    await rm(outDir, { recursive: true, force: true })
    await profile.dispose()
  }
}
