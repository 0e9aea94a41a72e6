import { APP_ORIGIN } from './app-protocol'

/** Where the renderer may live: our `app://` origin, or the dev server during `npm start`. */
export interface TrustedOrigins {
  readonly app: string
  readonly devServer: string | undefined
}

export function trustedOrigins(devServerUrl: string | undefined): TrustedOrigins {
  return { app: APP_ORIGIN, devServer: devServerUrl ? new URL(devServerUrl).origin : undefined }
}

export function isTrustedOrigin(url: string, origins: TrustedOrigins): boolean {
  let origin: string
  try {
    const parsed = new URL(url)
    // `new URL('app://retrace/x').origin` is "null" for non-special schemes; compare by parts.
    origin = parsed.protocol === 'app:' ? `app://${parsed.host}` : parsed.origin
  } catch {
    return false
  }
  return origin === origins.app || (origins.devServer !== undefined && origin === origins.devServer)
}

/** In-window navigation is denied: the app is one document (spec 11). */
export function decideNavigation(): 'deny' {
  return 'deny'
}

/**
 * A link the page asked to open (window.open, target=_blank): never a new window; http(s) links
 * go to the system browser, everything else (file:, javascript:, custom schemes) is dropped.
 */
export function externalLinkTarget(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    if (
      (parsed.protocol === 'https:' || parsed.protocol === 'http:') &&
      parsed.username === '' &&
      parsed.password === ''
    ) {
      return parsed.toString()
    }
  } catch {
    // not a URL
  }
  return undefined
}
