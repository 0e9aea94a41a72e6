import { Emitter } from '../../../shared/emitter'
import type { ChannelStatus, FrameChannel } from '../transport'
import { RequestClient, type DroppedFrame } from '../transport'

/** A request as the loopback host sees it. */
export interface SentFrame {
  readonly request_id: string
  readonly action: string
  readonly owner: { readonly project_id?: string }
  readonly payload: unknown
}

/**
 * A real `RequestClient` over an in-memory channel, for tests of what sits on the client: the test
 * plays the host, sees every request and answers (or not) when it likes. Not used by the app.
 */
export function loopbackClient() {
  const sent: SentFrame[] = []
  const dropped: DroppedFrame[] = []
  const frames = new Emitter<unknown>()
  const statusChanges = new Emitter<ChannelStatus>()
  const channel: FrameChannel = {
    status: 'open',
    send(frame) {
      sent.push(frame as SentFrame)
      return true
    },
    onFrame: frames.on,
    onStatus: statusChanges.on,
    close() {},
  }
  const client = new RequestClient(channel, (drop) => dropped.push(drop))
  return {
    client,
    sent,
    dropped,
    /** Answers a sent request with `result`, as the host would. */
    answer(request: SentFrame, result: unknown) {
      frames.fire({
        request_id: request.request_id,
        action: request.action,
        owner: request.owner,
        status: 'ok',
        result,
      })
    },
  }
}
