import type { RetraceBridge } from '../../../shared/bridge'
import { createIpcChannel } from './ipc-channel'
import { RequestClient } from './request-client'
import { createWebSocketChannel } from './websocket-channel'

export {
  RequestClient,
  DEFAULT_TIMEOUT_MS,
  type RequestOutcome,
  type RequestOptions,
  type DroppedFrame,
  type EventScope,
} from './request-client'
export type { ChannelStatus, FrameChannel } from './channel'
export { createWebSocketChannel } from './websocket-channel'
export { createIpcChannel } from './ipc-channel'

declare global {
  interface Window {
    readonly retraceBridge?: RetraceBridge
  }
}

/** Desktop when the preload bridge exists; otherwise browser mode, authorised by the URL token. */
export function connectToHost(onDrop: ConstructorParameters<typeof RequestClient>[1]): RequestClient {
  if (window.retraceBridge) return new RequestClient(createIpcChannel(window.retraceBridge), onDrop)
  // Without a token in the address, the host's cookie (set by the first authorised load) vouches.
  const token = new URL(window.location.href).searchParams.get('token')
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const query = token ? `?token=${encodeURIComponent(token)}` : ''
  const url = `${scheme}://${window.location.host}/api/ws${query}`
  return new RequestClient(createWebSocketChannel(url), onDrop)
}
