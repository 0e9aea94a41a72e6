import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { IPC_FRAME_CHANNEL, IPC_REQUEST_CHANNEL, type RetraceBridge } from '../shared/bridge'

/**
 * The only API the desktop renderer gets: send a request frame, receive server frames. Raw
 * `ipcRenderer` and event objects never cross into the page (spec 11).
 */
const bridge: RetraceBridge = {
  send(frame: unknown) {
    ipcRenderer.send(IPC_REQUEST_CHANNEL, frame)
  },
  onFrame(listener: (frame: unknown) => void) {
    const forward = (_event: IpcRendererEvent, frame: unknown) => listener(frame)
    ipcRenderer.on(IPC_FRAME_CHANNEL, forward)
    return () => {
      ipcRenderer.removeListener(IPC_FRAME_CHANNEL, forward)
    }
  },
}

contextBridge.exposeInMainWorld('retraceBridge', bridge)
