import { WebSocket } from 'ws'

/** A test WebSocket client that queues every frame so a test can await them in order. */
export class FrameClient {
  private readonly queue: unknown[] = []
  private waiters: Array<(frame: unknown) => void> = []
  readonly closed: Promise<void>

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const frame: unknown = isBinary ? data : JSON.parse(data.toString())
      const waiter = this.waiters.shift()
      if (waiter) waiter(frame)
      else this.queue.push(frame)
    })
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()))
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<FrameClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers })
      socket.once('open', () => resolve(new FrameClient(socket)))
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
      socket.once('error', reject)
    })
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
  }

  next(timeoutMs = 10_000): Promise<unknown> {
    const queued = this.queue.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame in time')), timeoutMs)
      this.waiters.push((frame) => {
        clearTimeout(timer)
        resolve(frame)
      })
    })
  }

  close(): void {
    this.socket.close()
  }
}
