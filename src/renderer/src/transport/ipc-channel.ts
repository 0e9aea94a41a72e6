import type { RetraceBridge } from '../../../shared/bridge'
import type { ChannelStatus, FrameChannel } from './channel'

/** Desktop: frames go through the preload bridge; the pipe is open as long as the window lives. */
export function createIpcChannel(bridge: RetraceBridge): FrameChannel {
  let status: ChannelStatus = 'open'
  const statusListeners = new Set<(status: ChannelStatus) => void>()
  return {
    get status() {
      return status
    },
    send(frame) {
      if (status !== 'open') return false
      bridge.send(frame)
      return true
    },
    onFrame: (listener) => bridge.onFrame(listener),
    onStatus(listener) {
      statusListeners.add(listener)
      return () => statusListeners.delete(listener)
    },
    close() {
      status = 'closed'
      for (const listener of statusListeners) listener('closed')
    },
  }
}
