import type { IpcMain, IpcMainEvent, WebContents } from 'electron'
import { IPC_FRAME_CHANNEL, IPC_REQUEST_CHANNEL } from '../../shared/bridge'
import type { Disposable } from '../../shared/disposable'
import type { Core } from '../core'
import { ProjectSubscriptions } from '../hosting'
import { InFlightWrites, isMutatingRequest } from './activity'
import { isTrustedSender } from './ipc-sender'
import type { TrustedOrigins } from './navigation'

export interface WindowRegistry {
  readonly ids: ReadonlySet<number>
  readonly all: () => readonly WebContents[]
}

/**
 * Connects the core to the renderer: request frames in (sender checked, then the core validates the
 * payload), one response frame out to the same sender, and events to the windows that opened
 * their project.
 */
export function attachCoreToIpc(
  ipcMain: Pick<IpcMain, 'on' | 'removeListener'>,
  core: Pick<Core, 'handle' | 'onEvent'>,
  windows: WindowRegistry,
  origins: TrustedOrigins,
  onRefused: (reason: string) => void,
  /** Counts mutating requests until answered, so a quit can wait for them. */
  writes: InFlightWrites = new InFlightWrites(),
): Disposable {
  const subscriptions = new Map<number, ProjectSubscriptions>()
  const subscriptionsOf = (id: number) => {
    let found = subscriptions.get(id)
    if (!found) subscriptions.set(id, (found = new ProjectSubscriptions()))
    return found
  }
  const onRequest = (event: IpcMainEvent, frame: unknown) => {
    const sender = {
      webContentsId: event.sender.id,
      frame: event.senderFrame ? { url: event.senderFrame.url, isMainFrame: event.senderFrame.parent === null } : null,
    }
    if (!isTrustedSender(sender, windows.ids, origins)) {
      onRefused(`IPC from untrusted sender ${sender.frame?.url ?? '(destroyed frame)'}`)
      return
    }
    subscriptionsOf(sender.webContentsId).noteRequest(frame)
    const answered = isMutatingRequest(frame) ? writes.begin() : () => {}
    void core
      .handle(frame)
      .finally(answered)
      .then((response) => {
        subscriptionsOf(sender.webContentsId).noteResponse(response)
        if (!event.sender.isDestroyed()) event.sender.send(IPC_FRAME_CHANNEL, response)
      })
  }
  ipcMain.on(IPC_REQUEST_CHANNEL, onRequest)
  // Events go only to windows that opened the event's project (spec 02).
  const events = core.onEvent((frame) => {
    for (const contents of windows.all()) {
      if (contents.isDestroyed() || !subscriptions.get(contents.id)?.wants(frame)) continue
      contents.send(IPC_FRAME_CHANNEL, frame)
    }
  })
  return {
    dispose() {
      ipcMain.removeListener(IPC_REQUEST_CHANNEL, onRequest)
      events.dispose()
    },
  }
}
