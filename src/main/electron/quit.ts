/** Work that a quit would interrupt: running agent turns and saves the engine has not answered. */
export interface Activity {
  readonly turns: number
  readonly saves: number
}

/** `user`: Quit, Cmd+Q, closing the last window. `shutdown`: the OS is logging out or powering off. */
export type QuitReason = 'user' | 'shutdown'

/**
 * A person is asked only while a turn or a save is in flight. An OS shutdown never asks (nobody
 * may be there to answer, and the OS will not wait long): it stops the work safely at once.
 */
export function needsConfirmation(activity: Activity, reason: QuitReason): boolean {
  return reason === 'user' && (activity.turns > 0 || activity.saves > 0)
}

export interface QuitDependencies {
  activity(): Promise<Activity>
  /** Asks the person; true to stop the work and quit. */
  confirm(activity: Activity): Promise<boolean>
  /**
   * Stops running turns (each is recorded as stopped, with what it changed so far), lets saves in
   * flight finish (bounded; an edit that did not reach the disk stays a draft) and stores the
   * shell's state. Must not throw.
   */
  stopWork(reason: QuitReason): Promise<void>
  /** Quits for real; from then on `allowsQuit` is true, so the shell's own quit events pass. */
  quit(): void
}

export type QuitOutcome = 'quit' | 'cancelled' | 'ignored'

export interface QuitGuard {
  /** True once the work is stopped: the app's quit and window-close events may proceed. */
  readonly allowsQuit: boolean
  request(reason: QuitReason): Promise<QuitOutcome>
}

/**
 * The one path out of the app. A second request while one is deciding is ignored (a repeated
 * Cmd+Q does not stack dialogs) — except a shutdown, which takes over from an open question.
 */
export function createQuitGuard(deps: QuitDependencies): QuitGuard {
  let state: 'open' | 'deciding' | 'stopping' | 'closed' = 'open'

  const stop = async (reason: QuitReason): Promise<QuitOutcome> => {
    state = 'stopping'
    try {
      await deps.stopWork(reason)
    } finally {
      state = 'closed'
      deps.quit()
    }
    return 'quit'
  }

  return {
    get allowsQuit() {
      return state === 'closed'
    },
    async request(reason) {
      if (state === 'stopping' || state === 'closed') return 'ignored'
      if (state === 'deciding') return reason === 'shutdown' ? stop(reason) : 'ignored'
      state = 'deciding'
      let activity: Activity
      try {
        activity = await deps.activity()
      } catch {
        // Unknown activity: ask rather than guess that nothing runs.
        activity = { turns: 1, saves: 0 }
      }
      if (state !== 'deciding') return 'ignored'
      if (needsConfirmation(activity, reason)) {
        const confirmed = await deps.confirm(activity)
        if (state !== 'deciding') return 'ignored'
        if (!confirmed) {
          state = 'open'
          return 'cancelled'
        }
      }
      return stop(reason)
    },
  }
}
