import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, openSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { commandEnvironment } from '../command-environment'
import { COMMAND_MARKER_VARIABLE } from '../command-groups'
import { processStartIdentity } from '../process-identity'
import { boundOutput, defineTool, type ToolContext, type ToolResult } from './define-tool'

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

/**
 * The command runs behind a gate: bash waits for one line on stdin, then `exec`s the command
 * (same pid, same group, same start time) with stdin from /dev/null as before. The engine writes
 * that line only once the group is recorded in SQLite, so no command ever runs unrecorded; if
 * the engine dies before, the gate reads end-of-file and exits without running anything.
 */
const GATE = 'IFS= read -r _ || exit 125; exec /bin/bash -c "$1" </dev/null'

type Gated =
  { kind: 'running'; child: ChildProcess; marker: string } | { kind: 'failed'; code: string; message: string }

async function startGated(
  command: string,
  context: ToolContext,
  /** 'pipe' to capture the output, or the descriptor of a background command's log file. */
  output: 'pipe' | number,
): Promise<Gated> {
  const marker = randomUUID()
  const child = spawn('/bin/bash', ['-c', GATE, 'retrace-command', command], {
    cwd: context.root,
    detached: true,
    stdio: ['pipe', output, output],
    // Never the engine's whole environment: the model can run `env` (see command-environment.ts).
    // The marker is added after the RETRACE_* variables are removed: recovery finds the group by it.
    env: {
      ...(context.commandEnvironment?.() ?? commandEnvironment(process.env, { names: [], values: [] })),
      [COMMAND_MARKER_VARIABLE]: marker,
    },
  })
  // A failed start is an answer, never an unhandled 'error' event in the main process.
  const started = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null))
    child.once('error', resolve)
  })
  if (started) return { kind: 'failed', code: 'INTERNAL', message: `Could not start bash: ${started.message}` }
  const pgid = child.pid as number
  // The gate is still waiting, so its identity is the command's (exec keeps the start time).
  const leaderIdentity = processStartIdentity(pgid)
  const recorded =
    context.commandGroups === undefined
      ? ({ kind: 'recorded' } as const)
      : leaderIdentity === null
        ? ({ kind: 'failed', message: 'its process could not be identified' } as const)
        : context.commandGroups.record({ pgid, leaderIdentity, marker, command })
  if (recorded.kind === 'failed' || context.signal.aborted) {
    child.stdin?.destroy()
    killGroupOf(pgid, 'SIGKILL')
    if (recorded.kind === 'failed') {
      return {
        kind: 'failed',
        code: 'INTERNAL',
        message: `Not run: Retrace could not record the command's process group (${recorded.message}); nothing was done.`,
      }
    }
    return { kind: 'failed', code: 'ABORTED', message: 'stopped before it ran — nothing was done' }
  }
  child.stdin?.on('error', () => {})
  child.stdin?.end('go\n')
  child.once('exit', () => {
    // A `cmd &` left behind keeps the group (and its row) until it ends or the engine stops it.
    context.commandGroups?.releaseIfEnded(pgid, marker)
  })
  return { kind: 'running', child, marker }
}

function killGroupOf(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // Already gone.
  }
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
    'edits: to change project files use write, edit or apply_patch; generate documents into a temporary folder inside',
    'the project and publish them with write(source_path=…) (a source outside the project is refused).',
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
      const gated = await startGated(input.command, context, log).finally(() => closeSync(log))
      if (gated.kind === 'failed') return { kind: 'error', code: gated.code, message: gated.message }
      const { child } = gated
      background.add(child)
      child.once('exit', () => background.delete(child))
      return {
        kind: 'ok',
        output: `Started in the background: pid ${child.pid ?? '?'}; output goes to ${logPath} (read it with bash, e.g. tail).`,
      }
    }
    const gated = await startGated(input.command, context, 'pipe')
    if (gated.kind === 'failed') return { kind: 'error', code: gated.code, message: gated.message }
    const { child } = gated
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
