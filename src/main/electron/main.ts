import { join } from 'node:path'
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeTheme,
  powerMonitor,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
} from 'electron'
import type { AppCommand } from '../../shared/app-command'
import { IPC_COMMAND_CHANNEL } from '../../shared/bridge'
import { createCore, type Core } from '../core'
import { InFlightWrites } from './activity'
import { APP_ENTRY_URL, APP_ORIGIN, APP_SCHEME_PRIVILEGES, registerAppProtocol } from './app-protocol'
import {
  captureWindowState,
  initialBounds,
  MIN_WINDOW_SIZE,
  readDesktopState,
  toggledTheme,
  writeDesktopState,
} from './desktop-state'
import { createElectronHost } from './host'
import { attachCoreToIpc } from './ipc-bridge'
import { launchPaths, resolveLaunchTarget, windowUrl } from './launch'
import { menuTemplate } from './menu'
import { menuLabels } from './menu-labels'
import { OFFICE_SCHEME_PRIVILEGES, registerOfficeProtocol } from './office-protocol'
import { hardenContents, hardenSession } from './harden'
import { trustedOrigins } from './navigation'
import { createQuitGuard, type QuitGuard } from './quit'
import { openProject, recentProjects, runningTurns, stopTurn } from './shell-requests'
import { secureWebPreferences } from './window'

/**
 * Desktop entry (`npm start`, packaged app). Wiring only: every decision lives in a tested module
 * next to this file (see test/electron-checklist.md for which test proves what).
 */
// Every origin the shell serves is registered here, before ready (the app, and the Office bundle's
// own `retrace-office://` origin, spec 10); their handlers are attached once the core exists.
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES, OFFICE_SCHEME_PRIVILEGES])

// RETRACE_DATA_DIR (tests, portable use) moves Chromium's profile too, so drafts, the window state
// and the single-instance lock belong to the same data directory.
if (process.env.RETRACE_DATA_DIR) app.setPath('userData', process.env.RETRACE_DATA_DIR)
const dataDir = app.getPath('userData')
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const origins = trustedOrigins(devServerUrl)
const windows = new Map<number, BrowserWindow>()
const labels = menuLabels(app.getPreferredSystemLanguages())
const desktop = readDesktopState(dataDir)
const launched = launchPaths(process.argv, { defaultApp: process.defaultApp === true })
let shellReady: ((paths: readonly string[], cwd: string) => void) | null = null
const earlyPaths: string[] = []

if (!app.requestSingleInstanceLock()) {
  // Another Retrace owns this data directory: it gets our arguments (second-instance) and we leave.
  app.quit()
} else {
  app.on('second-instance', (_event, argv, cwd) => {
    const paths = launchPaths(argv, { defaultApp: process.defaultApp === true })
    if (shellReady) shellReady(paths, cwd)
    else earlyPaths.push(...paths)
  })
  // macOS hands files opened from Finder (and the Dock) over as events, also before ready.
  app.on('open-file', (event, path) => {
    event.preventDefault()
    if (shellReady) shellReady([path], process.cwd())
    else earlyPaths.push(path)
  })
  void app.whenReady().then(start)
}

function saveDesktopState(): void {
  try {
    writeDesktopState(dataDir, desktop)
  } catch {
    // A read-only data directory loses the window's place, nothing else.
  }
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession)
  nativeTheme.themeSource = desktop.theme
  if (process.platform === 'win32') app.setAppUserModelId('dev.retrace.app')
  app.setAboutPanelOptions({ applicationName: 'Retrace', applicationVersion: app.getVersion() })

  const serving: { core?: Core } = {}
  registerAppProtocol(protocol, join(__dirname, '../renderer'), () => serving.core?.serveBytes.bind(serving.core))
  const host = createElectronHost({
    dialog,
    appVersion: app.getVersion(),
    focusedWindow: () => BrowserWindow.getFocusedWindow() ?? undefined,
    safeStorage,
  })
  const core = createCore({ dataDir, host, prewarmSearch: true })
  serving.core = core
  const officeOrigin = registerOfficeProtocol(protocol, core, APP_ORIGIN)
  const writes = new InFlightWrites()
  const bridge = attachCoreToIpc(
    ipcMain,
    core,
    {
      get ids() {
        return new Set(windows.keys())
      },
      all: () => [...windows.values()].map((window) => window.webContents),
    },
    origins,
    (reason) => host.log('warn', reason),
    writes,
  )

  const guard: QuitGuard = createQuitGuard({
    async activity() {
      // A save usually answers within milliseconds: no question for that.
      await writes.settled(1_500)
      return { turns: (await runningTurns(core)).length, saves: writes.size }
    },
    async confirm(activity) {
      const parent = BrowserWindow.getFocusedWindow() ?? [...windows.values()][0]
      const options = {
        type: 'warning' as const,
        buttons: [labels.quitConfirm, labels.cancel],
        defaultId: 1,
        cancelId: 1,
        message: labels.quitTitle,
        detail: [activity.turns > 0 ? labels.quitTurns : null, activity.saves > 0 ? labels.quitSaves : null]
          .filter((line) => line !== null)
          .join('\n\n'),
      }
      const { response } = parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)
      return response === 0
    },
    async stopWork(reason) {
      const limitMs = reason === 'shutdown' ? 3_000 : 10_000
      try {
        const turns = await runningTurns(core)
        await Promise.race([
          Promise.all(turns.map((turn) => stopTurn(core, turn))),
          new Promise((resolve) => setTimeout(resolve, limitMs)),
        ])
        await writes.settled(limitMs)
      } catch (error) {
        host.log('warn', 'Stopping work before quitting failed', { error: String(error) })
      }
      for (const window of windows.values()) desktop.window = captureWindowState(window)
      saveDesktopState()
    },
    quit: () => app.quit(),
  })

  const refreshMenu = async () => {
    const recent = await recentProjects(core)
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate({
          platform: process.platform,
          labels,
          recent,
          darkMode: nativeTheme.shouldUseDarkColors,
          development: !app.isPackaged,
          actions: {
            run: (command) => sendCommand({ kind: 'run', command }),
            openRecent: (folder) => void openFolder(folder, null),
            toggleDarkMode: () => {
              desktop.theme = toggledTheme(nativeTheme.shouldUseDarkColors)
              nativeTheme.themeSource = desktop.theme
              saveDesktopState()
            },
            openDataFolder: () => void shell.openPath(core.dataDir),
          },
        }),
      ),
    )
  }

  function createWindow(url: string): BrowserWindow {
    const window = new BrowserWindow({
      ...initialBounds(
        desktop.window,
        screen.getAllDisplays().map((display) => display.workArea),
      ),
      minWidth: MIN_WINDOW_SIZE.width,
      minHeight: MIN_WINDOW_SIZE.height,
      show: false,
      title: 'Retrace',
      webPreferences: secureWebPreferences(join(__dirname, '../preload/index.cjs')),
    })
    const contents = window.webContents
    windows.set(contents.id, window)
    hardenContents(contents, (url) => void shell.openExternal(url))
    window.once('ready-to-show', () => {
      if (desktop.window.maximized) window.maximize()
      if (desktop.window.fullScreen) window.setFullScreen(true)
      window.show()
    })
    window.on('close', (event) => {
      desktop.window = captureWindowState(window)
      saveDesktopState()
      // Closing the last window quits (except on macOS): the same question as Quit.
      if (guard.allowsQuit || process.platform === 'darwin' || windows.size > 1) return
      event.preventDefault()
      void guard.request('user')
    })
    window.on('closed', () => windows.delete(contents.id))
    // Windows: the user is logging off or shutting down; delay it until the work is stopped.
    window.on('query-session-end', (event) => {
      event.preventDefault()
      void guard.request('shutdown')
    })
    window.on('session-end', () => void guard.request('shutdown'))
    void window.loadURL(url)
    return window
  }

  function mainWindow(): BrowserWindow {
    const window =
      BrowserWindow.getFocusedWindow() ??
      [...windows.values()][0] ??
      createWindow(windowUrl(devServerUrl ?? APP_ENTRY_URL, null))
    if (window.isMinimized()) window.restore()
    window.focus()
    return window
  }

  function sendCommand(command: AppCommand): void {
    const contents = mainWindow().webContents
    // A page still loading would miss it; the preload keeps commands until the page listens.
    const send = () => contents.send(IPC_COMMAND_CHANNEL, command)
    if (contents.isLoading()) contents.once('did-finish-load', send)
    else send()
  }

  async function openFolder(folder: string, open: string | null): Promise<void> {
    const opened = await openProject(core, folder)
    if (opened.kind === 'error') {
      dialog.showErrorBox(labels.openFailedTitle, `${folder}\n\n${opened.message}`)
      return
    }
    sendCommand({ kind: 'show-project', project_id: opened.project.project_id, open })
  }

  async function openLaunched(paths: readonly string[], cwd: string): Promise<void> {
    if (paths.length === 0) {
      mainWindow()
      return
    }
    const known = (await recentProjects(core)).map((project) => project.root)
    for (const path of paths) {
      const target = await resolveLaunchTarget(path, cwd, known)
      if (target.kind === 'missing') dialog.showErrorBox(labels.openFailedTitle, target.path)
      else await openFolder(target.folder, target.open)
    }
  }

  core.onEvent((frame) => {
    if (frame.event !== 'project.opened') return
    // The OS's recent list (macOS Dock / File menu, Windows jump list) and the menu's Open Recent.
    if (typeof frame.data.root === 'string') app.addRecentDocument(frame.data.root)
    void refreshMenu()
  })
  nativeTheme.on('updated', () => void refreshMenu())

  // The first window opens the launched folder the way browser mode opens its folder: the project
  // is opened first (so it is the most recent one the window shows) and a file rides in `open=`.
  let firstOpen: string | null = null
  const [first, ...rest] = launched
  if (first !== undefined) {
    const target = await resolveLaunchTarget(
      first,
      process.cwd(),
      (await recentProjects(core)).map((p) => p.root),
    )
    const opened = target.kind === 'open' ? await openProject(core, target.folder) : null
    if (opened?.kind === 'ok' && target.kind === 'open') firstOpen = target.open
    else dialog.showErrorBox(labels.openFailedTitle, opened?.kind === 'error' ? `${first}\n\n${opened.message}` : first)
  }
  createWindow(windowUrl(devServerUrl ?? APP_ENTRY_URL, firstOpen))
  await refreshMenu()
  shellReady = (paths, cwd) => void openLaunched(paths, cwd)
  if (rest.length > 0 || earlyPaths.length > 0) void openLaunched([...rest, ...earlyPaths.splice(0)], process.cwd())

  app.on('activate', () => {
    if (windows.size === 0) createWindow(windowUrl(devServerUrl ?? APP_ENTRY_URL, null))
  })
  app.on('before-quit', (event) => {
    if (guard.allowsQuit) return
    event.preventDefault()
    void guard.request('user')
  })
  // Linux and macOS: the OS is about to power off or log out; finish safely without asking.
  // (The typings omit the event; Electron passes one, and preventDefault delays the shutdown.)
  ;(powerMonitor as unknown as NodeJS.EventEmitter).on('shutdown', (event: { preventDefault(): void }) => {
    event.preventDefault()
    void guard.request('shutdown')
  })
  process.once('SIGTERM', () => void guard.request('shutdown'))
  app.on('will-quit', () => {
    bridge.dispose()
    officeOrigin.dispose()
    core.dispose()
  })
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})
