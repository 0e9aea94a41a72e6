/** The preload's typed surface (desktop shell), as the renderer sees it on `window.retraceBridge`. */
export interface RetraceBridge {
  send(frame: unknown): void
  /** Returns the function that unsubscribes. */
  onFrame(listener: (frame: unknown) => void): () => void
}

export const IPC_REQUEST_CHANNEL = 'retrace:request'
export const IPC_FRAME_CHANNEL = 'retrace:frame'
