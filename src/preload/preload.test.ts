import { EventEmitter } from 'node:events'
import { expect, test, vi } from 'vitest'
import { IPC_COMMAND_CHANNEL, IPC_FRAME_CHANNEL, IPC_REQUEST_CHANNEL, type RetraceBridge } from '../shared/bridge'

// A stand-in for Electron's preload modules: what the page gets is whatever reaches exposeInMainWorld.
const exposed = new Map<string, unknown>()
const ipc = Object.assign(new EventEmitter(), { send: vi.fn() })
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: ipc,
}))
await import('./index')

test('the page gets one bridge object with three functions, never ipcRenderer or event objects', () => {
  expect([...exposed.keys()]).toEqual(['retraceBridge'])
  const bridge = exposed.get('retraceBridge') as RetraceBridge
  expect(Object.keys(bridge).sort()).toEqual(['onCommand', 'onFrame', 'send'])
  for (const value of Object.values(bridge)) expect(typeof value).toBe('function')

  bridge.send({ hello: 1 })
  expect(ipc.send).toHaveBeenCalledWith(IPC_REQUEST_CHANNEL, { hello: 1 })

  const frames: unknown[][] = []
  const stop = bridge.onFrame((...args) => frames.push(args))
  ipc.emit(IPC_FRAME_CHANNEL, { sender: 'the event object' }, { frame: 1 })
  stop()
  ipc.emit(IPC_FRAME_CHANNEL, { sender: 'the event object' }, { frame: 2 })
  expect(frames).toEqual([[{ frame: 1 }]])
})

test('shell commands sent before the page listens are delivered when it does, then live', () => {
  const bridge = exposed.get('retraceBridge') as RetraceBridge
  ipc.emit(IPC_COMMAND_CHANNEL, { sender: 'event' }, { kind: 'run', command: 'tabs.close' })
  const commands: unknown[][] = []
  const stop = bridge.onCommand((...args) => commands.push(args))
  ipc.emit(IPC_COMMAND_CHANNEL, { sender: 'event' }, { kind: 'run', command: 'help.shortcuts' })
  stop()
  expect(commands).toEqual([[{ kind: 'run', command: 'tabs.close' }], [{ kind: 'run', command: 'help.shortcuts' }]])
})
