import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import { appContentSecurityPolicy } from '../../shared/csp'
import type { Core } from '../core'
import { decideAccess, readCookie, tokenCookieName, type AccessDecision } from './access'
import { resolveStaticFile } from '../core/platform'
import { startOfficeOrigin, type OfficeOrigin } from './office-origin'

export const WEBSOCKET_PATH = '/api/ws'
/** Large enough for a 64 MiB file sent base64-encoded in one `files.write`. */
const MAX_FRAME_BYTES = 96 * 1024 * 1024

export interface WebHostOptions {
  readonly core: Core
  readonly rendererDir: string
  /** 0 picks a free port. */
  readonly port?: number
  readonly token?: string
}

export interface WebHost {
  readonly port: number
  readonly token: string
  /** The line scripts wait for: `http://127.0.0.1:<port>/?token=<token>`. */
  readonly url: string
  /** The Office bundle's own origin (a second loopback port). */
  readonly officeOrigin: string
  close(): Promise<void>
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  let port = 0
  const office: OfficeOrigin = await startOfficeOrigin({
    core: options.core,
    appOrigin: () => `http://127.0.0.1:${port}`,
  })
  const csp = appContentSecurityPolicy({ officeOrigin: office.origin })
  const sockets = new Set<WebSocket>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })

  const decide = (request: IncomingMessage, url: URL): AccessDecision =>
    decideAccess(
      { port, token },
      {
        host: request.headers.host,
        origin: request.headers.origin,
        queryToken: url.searchParams.get('token'),
        cookieToken: readCookie(request.headers.cookie, tokenCookieName(port)),
      },
    )

  const server = createServer((request, response) => {
    void serveHttp(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end()
      else response.destroy()
    })
  })

  async function serveHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const baseHeaders = {
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'same-origin',
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...baseHeaders, Allow: 'GET, HEAD' }).end()
      return
    }
    // Browsers ask for it unprompted; answering keeps the console free of a 404.
    if (url.pathname === '/favicon.ico') {
      response.writeHead(204, baseHeaders).end()
      return
    }
    const access = decide(request, url)
    if (access.kind === 'deny') {
      response.writeHead(access.status, { ...baseHeaders, 'Content-Type': 'text/plain; charset=utf-8' })
      response.end(`Forbidden (${access.reason}). Open the address Retrace printed when it started.\n`)
      return
    }
    const file = await resolveStaticFile(options.rendererDir, url.pathname)
    if (file.kind !== 'file') {
      response.writeHead(file.kind === 'refused' ? 403 : 404, baseHeaders).end()
      return
    }
    const headers: Record<string, string> = {
      ...baseHeaders,
      'Content-Type': file.mime,
      'Content-Length': String(file.bytes.length),
      'Content-Security-Policy': csp,
      'Cache-Control': file.isDocument ? 'no-store' : 'private, max-age=3600',
    }
    if (access.grantCookie) {
      headers['Set-Cookie'] = `${tokenCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`
    }
    response.writeHead(200, headers)
    response.end(request.method === 'HEAD' ? undefined : file.bytes)
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const access = decide(request, url)
    if (url.pathname !== WEBSOCKET_PATH || access.kind === 'deny') {
      const status = url.pathname !== WEBSOCKET_PATH ? '404 Not Found' : '403 Forbidden'
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => attach(ws))
  })

  function attach(ws: WebSocket): void {
    sockets.add(ws)
    ws.on('message', (data: RawData, isBinary: boolean) => {
      void answer(ws, data, isBinary)
    })
    ws.on('close', () => sockets.delete(ws))
    ws.on('error', () => sockets.delete(ws))
  }

  async function answer(ws: WebSocket, data: RawData, isBinary: boolean): Promise<void> {
    let parsed: unknown
    if (isBinary) {
      parsed = undefined
    } else {
      try {
        parsed = JSON.parse(rawToString(data))
      } catch {
        parsed = undefined
      }
    }
    const response = await options.core.handle(parsed)
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(response))
  }

  const subscription = options.core.onEvent((frame) => {
    const text = JSON.stringify(frame)
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  port = (server.address() as AddressInfo).port

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    officeOrigin: office.origin,
    async close() {
      await office.close()
      subscription.dispose()
      for (const ws of sockets) ws.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8')
  return data.toString('utf8')
}
