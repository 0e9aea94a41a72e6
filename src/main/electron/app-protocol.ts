import type { Protocol } from 'electron'
import { appContentSecurityPolicy } from '../../shared/csp'
import { BYTES_ROUTE, type ByteResponse } from '../core'
import { resolveStaticFile } from '../hosting'
import { OFFICE_ORIGIN } from './office-protocol'

/** The core's byte-transfer answer (see `Core.serveBytes`). */
export type ServeBytes = (
  ticketId: string,
  options: { range?: string | undefined; head?: boolean },
) => Promise<ByteResponse>

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
export async function answerAppRequest(
  rendererDir: string,
  requestUrl: string,
  method: string,
  bytes?: { serve: ServeBytes; range: string | null },
): Promise<Response> {
  const url = new URL(requestUrl)
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return new Response(null, { status: 403 })
  if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405 })
  if (url.pathname.startsWith(BYTES_ROUTE)) {
    if (!bytes) return new Response(null, { status: 404 })
    const answer = await bytes.serve(url.pathname.slice(BYTES_ROUTE.length), {
      range: bytes.range ?? undefined,
      head: method === 'HEAD',
    })
    const body = answer.body === null ? null : ReadableStream.from(answer.body)
    return new Response(body, { status: answer.status, headers: answer.headers })
  }
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

/**
 * `serveBytes` is read when a request arrives (the core starts after the protocol is registered).
 * The app origin is the only one that can reach it: the scheme is ours, and the renderer is the
 * only page Retrace loads.
 */
export function registerAppProtocol(
  protocol: Protocol,
  rendererDir: string,
  serveBytes?: () => ServeBytes | undefined,
): void {
  protocol.handle(APP_SCHEME, (request) => {
    const serve = serveBytes?.()
    return answerAppRequest(
      rendererDir,
      request.url,
      request.method,
      serve ? { serve, range: request.headers.get('range') } : undefined,
    )
  })
}
