import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'

/**
 * Spawning LibreOffice processes: each in its own process group (soffice starts soffice.bin
 * behind a launcher), so a timeout or dispose ends the whole tree by the group's id.
 */
export function spawnGroup(command: string, args: string[], options: SpawnOptions): ChildProcess {
  return spawn(command, args, { ...options, detached: process.platform !== 'win32', windowsHide: true })
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    if (process.platform === 'win32') child.kill('SIGKILL')
    else process.kill(-child.pid, 'SIGKILL')
  } catch {
    child.kill('SIGKILL')
  }
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

/** Keeps the last `limit` characters of a stream, for error messages. */
export function tail(stream: NodeJS.ReadableStream | null, limit = 2000): () => string {
  let text = ''
  stream?.on('data', (chunk: Buffer | string) => {
    text = (text + chunk.toString()).slice(-limit)
  })
  return () => text
}
