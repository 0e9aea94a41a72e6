import { join } from 'node:path'
import { app, BrowserWindow, dialog, ipcMain, protocol, safeStorage, session, shell, type WebContents } from 'electron'
import { createCore, type Core } from '../core'
import { APP_ENTRY_URL, APP_ORIGIN, APP_SCHEME_PRIVILEGES, registerAppProtocol } from './app-protocol'
import { createElectronHost } from './host'
import { OFFICE_SCHEME_PRIVILEGES, registerOfficeProtocol } from './office-protocol'
import { attachCoreToIpc } from './ipc-bridge'
import { decideNavigation, externalLinkTarget, trustedOrigins } from './navigation'
import { secureWebPreferences } from './window'

/** Desktop entry (`npm start`, packaged app). Kept thin: every decision lives in a tested module. */
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES, OFFICE_SCHEME_PRIVILEGES])

const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const origins = trustedOrigins(devServerUrl)
const windows = new Map<number, WebContents>()

function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    if (decideNavigation() === 'deny') event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalLinkTarget(url)
    if (external) void shell.openExternal(external)
    return { action: 'deny' }
  })
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    show: false,
    title: 'Retrace',
    webPreferences: secureWebPreferences(join(__dirname, '../preload/index.cjs')),
  })
  const contents = window.webContents
  windows.set(contents.id, contents)
  window.on('closed', () => windows.delete(contents.id))
  hardenContents(contents)
  window.once('ready-to-show', () => window.show())
  void window.loadURL(devServerUrl ?? APP_ENTRY_URL)
  return window
}

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
  const serving: { core?: Core } = {}
  registerAppProtocol(protocol, join(__dirname, '../renderer'), () => serving.core?.serveBytes.bind(serving.core))

  const host = createElectronHost({
    dialog,
    appVersion: app.getVersion(),
    focusedWindow: () => BrowserWindow.getFocusedWindow() ?? undefined,
    safeStorage,
  })
  const started = createCore({
    dataDir: process.env.RETRACE_DATA_DIR ?? app.getPath('userData'),
    host,
    prewarmSearch: true,
  })
  serving.core = started
  const officeOrigin = registerOfficeProtocol(protocol, started, APP_ORIGIN)
  const bridge = attachCoreToIpc(
    ipcMain,
    started,
    {
      get ids() {
        return new Set(windows.keys())
      },
      all: () => [...windows.values()],
    },
    origins,
    (reason) => host.log('warn', reason),
  )
  createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow()
  })
  app.on('will-quit', () => {
    bridge.dispose()
    officeOrigin.dispose()
    started.dispose()
  })
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})
