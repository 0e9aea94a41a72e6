import { readFile, realpath, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { isInside } from '../platform'

/**
 * What the Office origin answers, shared by browser mode's second loopback port and the desktop
 * shell's own protocol. It serves the files of the selected bundle tree and nothing else: GET and
 * HEAD only, a content-type allow-list, no directory listings, nothing under `/api/` (the app's
 * API, auth and WebSocket live on the app origin only), no cookies. Its pages may be framed only
 * by the app and may connect nowhere but themselves.
 */

export interface OfficeAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body?: Buffer
}

export const OFFICE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.bin': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
}

export function officeOriginHeaders(appOrigin: string): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
    // The editor (sdkjs) evaluates generated code and compiles x2t's WebAssembly; it may talk to
    // nothing but its own origin, and only the app may frame it.
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      "connect-src 'self' blob:",
      "worker-src 'self' blob:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${appOrigin}`,
    ].join('; '),
  }
}

export async function answerOfficeAsset(
  bundleDir: string | null,
  urlPath: string,
  method: string,
  appOrigin: string,
): Promise<OfficeAnswer> {
  const headers = officeOriginHeaders(appOrigin)
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { ...headers, Allow: 'GET, HEAD' } }
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return { status: 404, headers }
  }
  const segments = decoded.split('/').filter((s) => s !== '')
  if (
    bundleDir === null ||
    segments.length === 0 ||
    segments[0] === 'api' ||
    decoded.includes('\0') ||
    decoded.includes('\\') ||
    segments.some((s) => s === '..' || s === '.' || s.startsWith('.retrace'))
  ) {
    return { status: 404, headers }
  }
  const type = OFFICE_CONTENT_TYPES[extname(decoded).toLowerCase()]
  if (!type) return { status: 404, headers }
  let real: string
  try {
    const root = await realpath(bundleDir)
    real = await realpath(join(root, ...segments))
    if (!isInside(root, real) || !(await stat(real)).isFile()) return { status: 404, headers }
  } catch {
    return { status: 404, headers }
  }
  const body = await readFile(real)
  return {
    status: 200,
    headers: { ...headers, 'Content-Type': type, 'Content-Length': String(body.length) },
    ...(method === 'GET' ? { body } : {}),
  }
}
