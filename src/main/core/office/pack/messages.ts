/** The engine ↔ pack worker IPC (structured-clone messages over the fork channel). */
export type PackRequest = {
  readonly type: 'convert'
  readonly id: number
  /** Absolute paths in the engine's private work folder; bytes never cross the channel. */
  readonly input: string
  readonly output: string
  readonly inputFormat: string
  readonly outputFormat: string
}

export type PackReply =
  | { readonly type: 'ready' }
  | { readonly type: 'failed-start'; readonly message: string }
  | { readonly type: 'rss'; readonly rss: number }
  | { readonly type: 'done'; readonly id: number; readonly ok: true }
  | { readonly type: 'done'; readonly id: number; readonly ok: false; readonly code: string; readonly message: string }
