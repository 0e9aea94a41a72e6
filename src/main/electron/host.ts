import type { BrowserWindow, Dialog } from 'electron'
import type { Host } from '../core'

export function createElectronHost(options: {
  dialog: Pick<Dialog, 'showOpenDialog'>
  appVersion: string
  focusedWindow: () => BrowserWindow | undefined
}): Host {
  return {
    shell: 'desktop',
    appVersion: options.appVersion,
    async pickFolder() {
      const window = options.focusedWindow()
      const dialogOptions = { properties: ['openDirectory' as const, 'createDirectory' as const] }
      const result = window
        ? await options.dialog.showOpenDialog(window, dialogOptions)
        : await options.dialog.showOpenDialog(dialogOptions)
      return result.canceled ? null : (result.filePaths[0] ?? null)
    },
    log(level, message, fields) {
      process.stderr.write(`[${level}] ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`)
    },
  }
}
