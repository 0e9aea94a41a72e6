import type { BrowserWindow, Dialog, SafeStorage } from 'electron'
import type { Host } from '../core'

export function createElectronHost(options: {
  dialog: Pick<Dialog, 'showOpenDialog'>
  appVersion: string
  focusedWindow: () => BrowserWindow | undefined
  safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>
}): Host {
  const { safeStorage } = options
  return {
    shell: 'desktop',
    appVersion: options.appVersion,
    // Without OS-level encryption (e.g. no keyring on Linux) keys are not stored at all: the user
    // names an environment variable instead, as in browser mode.
    ...(safeStorage.isEncryptionAvailable()
      ? {
          secrets: {
            encrypt: (plain: string) => safeStorage.encryptString(plain),
            decrypt: (cipher: Buffer) => {
              try {
                return safeStorage.decryptString(cipher)
              } catch {
                return null
              }
            },
          },
        }
      : {}),
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
