import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { EXPORT_FILTERS, FAMILY_OF, PDF_FILTERS } from '../formats'
import type { ConversionJob, ConversionOutcome } from './types'
import { createProfile, HEADLESS_ARGUMENTS, type Profile } from './profile'
import { killGroup, spawnGroup, tail } from './process'
import { UNO_BRIDGE_SCRIPT } from './uno-bridge-script'

/**
 * One resident LibreOffice listener (`soffice --accept=pipe…`) driven by the UNO bridge process:
 * started once (~2 s), then a conversion costs only the document's own load and export. It can
 * die on a document that the one-shot CLI converts fine (verified-facts: DisposedException on 3
 * of 13 real files); the supervisor in `converter.ts` restarts it and falls back.
 */
export interface ResidentListener {
  readonly pid: number | undefined
  convert(job: ConversionJob): Promise<ConversionOutcome>
  /** Resolves when the listener or its bridge exits, for whatever reason. */
  readonly ended: Promise<void>
  dispose(): void
}

interface Answer {
  id: number
  ok?: boolean
  error?: string
  message?: string
  family?: string
  ready?: boolean
}

export async function startResident(options: {
  soffice: string
  python: string
  workDir: string
  env: NodeJS.ProcessEnv
  startTimeoutMs: number
}): Promise<ResidentListener> {
  const profile: Profile = await createProfile()
  const pipe = `retrace-${randomBytes(8).toString('hex')}`
  const office = spawnGroup(
    options.soffice,
    [profile.argument, ...HEADLESS_ARGUMENTS, `--accept=pipe,name=${pipe};urp;StarOffice.ComponentContext`],
    { env: profile.environment(options.env), stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const officeErrors = tail(office.stderr)
  const bridge = spawnGroup(
    options.python,
    [
      '-c',
      UNO_BRIDGE_SCRIPT,
      pipe,
      String(Math.ceil(options.startTimeoutMs / 1000)),
      String(office.pid ?? 0),
      profile.dir,
    ],
    { env: profile.environment(options.env), stdio: ['pipe', 'pipe', 'pipe'] },
  )
  const bridgeErrors = tail(bridge.stderr)

  let nextId = 0
  const pending = new Map<number, (answer: Answer) => void>()
  let ready: () => void = () => undefined
  const isReady = new Promise<void>((resolve) => (ready = resolve))
  let ending = false
  let endedResolve: () => void = () => undefined
  const ended = new Promise<void>((resolve) => (endedResolve = resolve))

  const end = () => {
    if (ending) return
    ending = true
    killGroup(bridge)
    killGroup(office)
    for (const settle of pending.values()) settle({ id: -1, ok: false, error: 'crashed' })
    pending.clear()
    // A killed listener leaves its named pipe behind; LibreOffice keeps its pipes in /tmp.
    const pipeFile = join('/tmp', `OSL_PIPE_${process.getuid?.() ?? 0}_${pipe}`)
    void Promise.all([profile.dispose(), rm(pipeFile, { force: true })]).finally(endedResolve)
  }
  /** Asks LibreOffice to quit (it then removes its pipes in /tmp); killed if it has not within 3 s. */
  const shutDown = () => {
    if (ending) return
    if (pending.size > 0 || !bridge.stdin?.writable) return end()
    quitting = true
    // The bridge outlives Retrace if it must: it removes the profile once LibreOffice has exited.
    bridge.stdin.write(`${JSON.stringify({ quit: true })}\n`)
    const deadline = setTimeout(end, 3000)
    deadline.unref()
    office.once('exit', () => clearTimeout(deadline))
  }
  const lines = createInterface({ input: bridge.stdout as NodeJS.ReadableStream })
  lines.on('line', (line) => {
    let answer: Answer
    try {
      answer = JSON.parse(line) as Answer
    } catch {
      return
    }
    if (answer.ready) {
      ready()
      return
    }
    pending.get(answer.id)?.(answer)
    pending.delete(answer.id)
  })
  let quitting = false
  office.once('exit', end)
  // The bridge exits by itself after asking LibreOffice to quit; only an unasked exit is a crash.
  bridge.once('exit', () => {
    if (!quitting) end()
  })
  bridge.stdin?.on('error', end)

  let timer: ReturnType<typeof setTimeout> | undefined
  const started = await Promise.race([
    isReady.then(() => true),
    ended.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), options.startTimeoutMs)
    }),
  ])
  clearTimeout(timer)
  if (!started) {
    end()
    await ended
    throw new Error(
      `The LibreOffice listener did not start: ${bridgeErrors().trim().slice(-300) || officeErrors().trim().slice(-300) || 'timed out'}`,
    )
  }

  return {
    pid: office.pid,
    ended,
    dispose: shutDown,
    convert(job) {
      if (ending) return Promise.resolve({ kind: 'failed', reason: 'crashed', message: 'The listener has stopped.' })
      const id = ++nextId
      const filters = job.target === 'pdf' ? PDF_FILTERS : { [FAMILY_OF[job.target]]: EXPORT_FILTERS[job.target] ?? '' }
      return new Promise<ConversionOutcome>((resolve) => {
        const timeout = setTimeout(() => {
          pending.delete(id)
          // A listener stuck on one document is of no use to the next: end it.
          end()
          resolve({
            kind: 'failed',
            reason: 'timeout',
            message: `LibreOffice did not finish within ${job.timeoutMs} ms.`,
          })
        }, job.timeoutMs)
        const abort = () => {
          pending.delete(id)
          clearTimeout(timeout)
          end()
          resolve({ kind: 'failed', reason: 'aborted', message: 'The conversion was cancelled.' })
        }
        job.signal?.addEventListener('abort', abort, { once: true })
        pending.set(id, (answer) => {
          clearTimeout(timeout)
          job.signal?.removeEventListener('abort', abort)
          if (answer.ok) resolve({ kind: 'ok', engine: 'resident' })
          else {
            const reason = answer.error === 'disposed' ? 'crashed' : (answer.error ?? 'failed')
            resolve({
              kind: 'failed',
              reason: ['password', 'load-failed', 'wrong-family', 'crashed'].includes(reason)
                ? (reason as 'password' | 'load-failed' | 'wrong-family' | 'crashed')
                : 'failed',
              message: answer.message ?? `LibreOffice could not convert the document (${reason}).`,
            })
          }
        })
        const input_filter = job.inputFilter ?? null
        bridge.stdin?.write(`${JSON.stringify({ id, input: job.input, output: job.output, filters, input_filter })}\n`)
      })
    },
  }
}
