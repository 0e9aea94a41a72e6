import type { Protocol } from 'electron'
import { appContentSecurityPolicy } from '../../shared/csp'
import { resolveStaticFile } from '../core/platform'
import { OFFICE_ORIGIN } from './office-protocol'

export const APP_SCHEME = 'app'
export const APP_HOST = 'retrace'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`

/** Must run before `app.whenReady()`: a standard, secure scheme gets a real origin (not `null`). */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true },
} as const

/**
 * Answers one `app://` request from the built renderer directory, with the CSP as a header
 * (spec 11). Other hosts, traversal and anything outside the renderer directory are refused.
 */
export async function answerAppRequest(rendererDir: string, requestUrl: string, method: string): Promise<Response> {
  const url = new URL(requestUrl)
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return new Response(null, { status: 403 })
  if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405 })
  const file = await resolveStaticFile(rendererDir, url.pathname)
  if (file.kind === 'refused') return new Response(null, { status: 403 })
  if (file.kind === 'missing') return new Response(null, { status: 404 })
  return new Response(method === 'HEAD' ? null : new Uint8Array(file.bytes), {
    status: 200,
    headers: {
      'Content-Type': file.mime,
      // The app may frame its Office origin and nothing else.
      'Content-Security-Policy': appContentSecurityPolicy({ officeOrigin: OFFICE_ORIGIN }),
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

export function registerAppProtocol(protocol: Protocol, rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => answerAppRequest(rendererDir, request.url, request.method))
}
