import type { Protocol } from 'electron'
import type { Core } from '../core'
import { answerOfficeAsset } from '../core/office'

export const OFFICE_SCHEME = 'retrace-office'
export const OFFICE_HOST = 'bundle'
export const OFFICE_ORIGIN = `${OFFICE_SCHEME}://${OFFICE_HOST}`

/** Registered before `app.whenReady()` next to `app://`: its own standard, secure origin. */
export const OFFICE_SCHEME_PRIVILEGES = {
  scheme: OFFICE_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true },
} as const

/**
 * The desktop shell's Office origin (spec 10): `retrace-office://bundle/…` serves the selected
 * bundle tree with the same answers as browser mode's second port — GET/HEAD of allow-listed files
 * only. It is a different origin from `app://retrace`, so its pages reach neither the preload
 * bridge (main frame of the app origin only) nor anything else of the app.
 */
export async function answerOfficeRequest(
  core: Pick<Core, 'office'>,
  requestUrl: string,
  method: string,
  appOrigin: string,
): Promise<Response> {
  const url = new URL(requestUrl)
  if (url.protocol !== `${OFFICE_SCHEME}:` || url.host !== OFFICE_HOST) return new Response(null, { status: 404 })
  const answer = await answerOfficeAsset(await core.office.bundleDirectory(), url.pathname, method, appOrigin)
  return new Response(answer.body ? new Uint8Array(answer.body) : null, {
    status: answer.status,
    headers: answer.headers,
  })
}

export function registerOfficeProtocol(
  protocol: Protocol,
  core: Pick<Core, 'office'>,
  appOrigin: string,
): { dispose(): void } {
  protocol.handle(OFFICE_SCHEME, (request) => answerOfficeRequest(core, request.url, request.method, appOrigin))
  return core.office.attachOrigin(OFFICE_ORIGIN)
}
