import type { Session, WebContents } from 'electron'
import { decideNavigation, externalLinkTarget } from './navigation'

/**
 * Spec 11 on the session: every permission request (camera, microphone, notifications, geolocation,
 * clipboard-read, …) and every permission check is refused. Retrace needs none of them.
 */
export function hardenSession(
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
}

/**
 * Spec 11 on every page: no in-window navigation, no `<webview>`, no new windows; an http(s) link
 * the page asks to open goes to the system browser (after `externalLinkTarget` checks it).
 */
export function hardenContents(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>,
  openExternal: (url: string) => void,
): void {
  contents.on('will-navigate', (event) => {
    if (decideNavigation() === 'deny') event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalLinkTarget(url)
    if (external) openExternal(external)
    return { action: 'deny' }
  })
}
