import type { RetraceBridge } from '../../../shared/bridge'
import { Emitter } from '../../../shared/emitter'
import type { ChannelStatus, FrameChannel } from './channel'

/** Desktop: frames go through the preload bridge; the pipe is open as long as the window lives. */
export function createIpcChannel(bridge: RetraceBridge): FrameChannel {
  let status: ChannelStatus = 'open'
  const statusChanges = new Emitter<ChannelStatus>()
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
    onStatus: statusChanges.on,
    close() {
      status = 'closed'
      statusChanges.fire('closed')
    },
  }
}
