/** Anything that must be released: watchers, subscriptions, servers, child processes. */
export interface Disposable {
  dispose(): void
}

export function toDisposable(dispose: () => void): Disposable {
  let disposed = false
  return {
    dispose() {
      if (disposed) return
      disposed = true
      dispose()
    },
  }
}
