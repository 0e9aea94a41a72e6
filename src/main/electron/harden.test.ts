import { EventEmitter } from 'node:events'
import { expect, test, vi } from 'vitest'

// The real package would try to download the Electron binary; these functions take its objects.
vi.mock('electron', () => ({}))
const { hardenContents, hardenSession } = await import('./harden')

test('every permission request and check is refused', () => {
  let onRequest: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined
  let onCheck: ((...args: unknown[]) => boolean) | undefined
  hardenSession({
    setPermissionRequestHandler: (handler: never) => (onRequest = handler),
    setPermissionCheckHandler: (handler: never) => (onCheck = handler),
  } as never)
  for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen']) {
    const callback = vi.fn()
    onRequest?.({}, permission, callback)
    expect(callback).toHaveBeenCalledWith(false)
    expect(onCheck?.({}, permission, 'app://retrace', {})).toBe(false)
  }
})

test('pages cannot navigate, attach a webview or open windows; http(s) links go to the system browser', () => {
  const contents = Object.assign(new EventEmitter(), { setWindowOpenHandler: vi.fn() })
  const opened: string[] = []
  hardenContents(contents as never, (url) => opened.push(url))
  const event = () => ({ preventDefault: vi.fn() })
  const navigate = event()
  contents.emit('will-navigate', navigate, 'https://evil.example/')
  expect(navigate.preventDefault).toHaveBeenCalled()
  const webview = event()
  contents.emit('will-attach-webview', webview, {}, {})
  expect(webview.preventDefault).toHaveBeenCalled()
  const openHandler = contents.setWindowOpenHandler.mock.calls[0]?.[0] as (details: { url: string }) => unknown
  expect(openHandler({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' })
  expect(openHandler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' })
  expect(openHandler({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' })
  expect(opened).toEqual(['https://example.com/docs'])
})
