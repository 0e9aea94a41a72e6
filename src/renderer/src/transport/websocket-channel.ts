import { Emitter } from '../../../shared/emitter'
import type { ChannelStatus, FrameChannel } from './channel'

/**
 * Browser mode: one WebSocket to the host. It reconnects with backoff after a drop; requests that
 * were in flight are failed as `disconnected` by the client (their answers could not arrive).
 */
export function createWebSocketChannel(url: string, options: { reconnect?: boolean } = {}): FrameChannel {
  const frames = new Emitter<unknown>()
  const statusChanges = new Emitter<ChannelStatus>()
  let status: ChannelStatus = 'connecting'
  let socket: WebSocket | undefined
  let closed = false
  let attempts = 0
  let retryTimer: ReturnType<typeof setTimeout> | undefined

  const setStatus = (next: ChannelStatus) => {
    if (next === status) return
    status = next
    statusChanges.fire(next)
  }

  const connect = () => {
    const ws = new WebSocket(url)
    socket = ws
    ws.addEventListener('open', () => {
      attempts = 0
      setStatus('open')
    })
    ws.addEventListener('message', (event: MessageEvent) => {
      if (typeof event.data !== 'string') return
      let frame: unknown
      try {
        frame = JSON.parse(event.data)
      } catch {
        return
      }
      frames.fire(frame)
    })
    ws.addEventListener('close', () => {
      setStatus('closed')
      if (closed || options.reconnect === false) return
      attempts += 1
      retryTimer = setTimeout(
        () => {
          setStatus('connecting')
          connect()
        },
        Math.min(10_000, 250 * 2 ** attempts),
      )
    })
  }
  connect()

  return {
    get status() {
      return status
    },
    send(frame) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false
      socket.send(JSON.stringify(frame))
      return true
    },
    onFrame: frames.on,
    onStatus: statusChanges.on,
    close() {
      closed = true
      clearTimeout(retryTimer)
      socket?.close()
    },
  }
}
