/** The preload's typed surface (desktop shell), as the renderer sees it on `window.retraceBridge`. */
export interface RetraceBridge {
  send(frame: unknown): void
  /** Returns the function that unsubscribes. */
  onFrame(listener: (frame: unknown) => void): () => void
  /**
   * Commands from the desktop shell (the application menu, a second launch, a file opened with
   * Retrace). Validated by the renderer against `AppCommand` (`src/shared/app-command.ts`).
   * Commands that arrive before the page subscribes are kept and delivered on subscription.
   */
  onCommand(listener: (command: unknown) => void): () => void
}

export const IPC_REQUEST_CHANNEL = 'retrace:request'
export const IPC_FRAME_CHANNEL = 'retrace:frame'
/** Main → renderer only: an `AppCommand`. */
export const IPC_COMMAND_CHANNEL = 'retrace:command'
