import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, openSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { boundOutput, defineTool, type ToolResult } from './define-tool'

const DEFAULT_TIMEOUT_MS = 120_000
const MAX_TIMEOUT_MS = 600_000
const KILL_GRACE_MS = 2_000
const MAX_CAPTURE_CHARS = 200_000

const background = new Set<ChildProcess>()

/** Signals a command's whole process group (it runs detached, as its own group leader). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

/** Ends the group politely, then for sure; resolves once the leader has exited. */
function terminate(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  killGroup(child, 'SIGTERM')
  const force = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS)
  return exited.then(() => {
    clearTimeout(force)
    // Grandchildren that ignored SIGTERM go too.
    killGroup(child, 'SIGKILL')
  })
}

/** Stops every background command this process started (on shutdown). */
export async function killBackgroundProcesses(): Promise<void> {
  const children = [...background]
  background.clear()
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : terminate(child, new Promise((resolve) => child.once('exit', resolve))),
    ),
  )
}

export const bashTool = defineTool({
  name: 'bash',
  kind: 'command',
  description: [
    'Runs a shell command with /bin/bash in the project folder and returns its combined output and exit code.',
    `timeout_ms defaults to ${DEFAULT_TIMEOUT_MS} (at most ${MAX_TIMEOUT_MS}); on timeout the whole process group`,
    'is stopped. Output over about 30 000 characters keeps its beginning and end. run_in_background starts it',
    'and returns at once with its pid and a log file. File changes made by commands are not recorded as your',
    'edits: to change project files use write, edit or apply_patch; generate documents into a temp folder and',
    'publish them with write(source_path=…).',
  ].join(' '),
  input: z.object({
    command: z.string().min(1),
    timeout_ms: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
    run_in_background: z.boolean().optional(),
  }),
  async execute(input, context): Promise<ToolResult> {
    if (context.signal.aborted) {
      return { kind: 'error', code: 'ABORTED', message: 'stopped before it ran — nothing was done' }
    }
    if (input.run_in_background) {
      const logDir = join(context.dataDir, 'agent-bg')
      mkdirSync(logDir, { recursive: true, mode: 0o700 })
      const logPath = join(logDir, `${context.callId.replace(/[^A-Za-z0-9_-]/g, '_')}.log`)
      const log = openSync(logPath, 'a', 0o600)
      const child = spawn('/bin/bash', ['-c', input.command], {
        cwd: context.root,
        detached: true,
        stdio: ['ignore', log, log],
      })
      closeSync(log)
      // A failed start is an answer, never an unhandled 'error' event in the main process.
      const started = await new Promise<Error | null>((resolve) => {
        child.once('spawn', () => resolve(null))
        child.once('error', resolve)
      })
      if (started) return { kind: 'error', code: 'INTERNAL', message: `Could not start bash: ${started.message}` }
      background.add(child)
      child.once('exit', () => background.delete(child))
      return {
        kind: 'ok',
        output: `Started in the background: pid ${child.pid ?? '?'}; output goes to ${logPath} (read it with bash, e.g. tail).`,
      }
    }
    const child = spawn('/bin/bash', ['-c', input.command], {
      cwd: context.root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let dropped = 0
    // Decoded as a stream: a character split across chunks is not garbled.
    const decoder = new TextDecoder('utf-8')
    const capture = (chunk: Buffer) => {
      const text = decoder.decode(chunk, { stream: true })
      if (output.length < MAX_CAPTURE_CHARS) output += text
      else {
        // Keep a rolling tail so the end of a long output is still shown.
        output = output.slice(0, MAX_CAPTURE_CHARS / 2) + output.slice(MAX_CAPTURE_CHARS / 2 + text.length) + text
        dropped += text.length
      }
    }
    child.stdout?.on('data', capture)
    child.stderr?.on('data', capture)
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }))
      child.once('exit', (code, signal) => {
        // A process left running in the background (`cmd &`) keeps the pipes open: take what is
        // buffered, then stop reading instead of waiting for it.
        const settle = () => {
          child.stdout?.destroy()
          child.stderr?.destroy()
          resolve({ code, signal })
        }
        const grace = setTimeout(settle, 150)
        child.once('close', () => {
          clearTimeout(grace)
          resolve({ code, signal })
        })
      })
    })
    let stopReason: 'timeout' | 'aborted' | undefined
    const timeoutMs = input.timeout_ms ?? DEFAULT_TIMEOUT_MS
    const timer = setTimeout(() => {
      stopReason = 'timeout'
      void terminate(child, exited)
    }, timeoutMs)
    const onAbort = () => {
      stopReason ??= 'aborted'
      void terminate(child, exited)
    }
    context.signal.addEventListener('abort', onAbort, { once: true })
    const result = await exited
    clearTimeout(timer)
    context.signal.removeEventListener('abort', onAbort)
    const shown = boundOutput(dropped > 0 ? `${output}\n… [${dropped} more characters not kept]` : output)
    if (result.error)
      return { kind: 'error', code: 'INTERNAL', message: `Could not start bash: ${result.error.message}` }
    if (stopReason === 'aborted') {
      return { kind: 'error', code: 'ABORTED', message: `aborted — result unknown\n${shown}`.trimEnd() }
    }
    if (stopReason === 'timeout') {
      return { kind: 'error', code: 'TIMEOUT', message: `Stopped after ${timeoutMs} ms (timeout).\n${shown}`.trimEnd() }
    }
    const status = result.code !== null ? `exit code ${result.code}` : `killed by ${result.signal ?? 'a signal'}`
    return { kind: 'ok', output: `${shown}${shown.endsWith('\n') || shown === '' ? '' : '\n'}${status}` }
  },
})
