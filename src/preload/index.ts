import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { IPC_COMMAND_CHANNEL, IPC_FRAME_CHANNEL, IPC_REQUEST_CHANNEL, type RetraceBridge } from '../shared/bridge'

/**
 * The only API the desktop renderer gets: send a request frame, receive server frames, receive
 * shell commands. Raw `ipcRenderer` and event objects never cross into the page (spec 11).
 */

// The shell may send a command (a file opened with Retrace) before the page has subscribed.
const earlyCommands: unknown[] = []
let commandListener: ((command: unknown) => void) | null = null
ipcRenderer.on(IPC_COMMAND_CHANNEL, (_event: IpcRendererEvent, command: unknown) => {
  if (commandListener) commandListener(command)
  else if (earlyCommands.length < 32) earlyCommands.push(command)
})

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
  onCommand(listener: (command: unknown) => void) {
    commandListener = listener
    for (const command of earlyCommands.splice(0)) listener(command)
    return () => {
      if (commandListener === listener) commandListener = null
    }
  },
}

contextBridge.exposeInMainWorld('retraceBridge', bridge)
