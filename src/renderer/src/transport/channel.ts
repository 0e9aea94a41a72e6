/** A bidirectional frame pipe: WebSocket in browser mode, the preload bridge in the desktop shell. */
export interface FrameChannel {
  send(frame: unknown): boolean
  onFrame(listener: (frame: unknown) => void): () => void
  onStatus(listener: (status: ChannelStatus) => void): () => void
  readonly status: ChannelStatus
  close(): void
}

export type ChannelStatus = 'connecting' | 'open' | 'closed'
