import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Core } from '../core'
import { answerOfficeAsset } from '../core/office'
import { allowedHosts } from './access'

export interface OfficeOrigin {
  readonly port: number
  /** `http://127.0.0.1:<port>` — the app's CSP frames only this. */
  readonly origin: string
  close(): Promise<void>
}

/**
 * Browser mode's Office origin (spec 10/11): a second loopback port serving only the selected
 * bundle tree. It has no token, sets no cookie and knows nothing of the app's API or WebSocket —
 * a page there cannot reach them, because they exist only on the app's port. The Host header
 * must still be the loopback address (DNS-rebinding defence).
 */
export async function startOfficeOrigin(options: { core: Core; appOrigin: () => string }): Promise<OfficeOrigin> {
  let port = 0
  const server = createServer((request, response) => {
    void serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end()
      else response.destroy()
    })
  })

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.host === undefined || !allowedHosts(port).includes(request.headers.host)) {
      response.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Forbidden (host).\n')
      return
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const answer = await answerOfficeAsset(
      await options.core.office.bundleDirectory(),
      url.pathname,
      request.method ?? 'GET',
      options.appOrigin(),
    )
    response.writeHead(answer.status, answer.headers)
    response.end(answer.body)
  }

  // No WebSocket lives here; an upgrade is answered like any unknown path.
  server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  port = (server.address() as AddressInfo).port
  const origin = `http://127.0.0.1:${port}`
  const attached = options.core.office.attachOrigin(origin)
  return {
    port,
    origin,
    async close() {
      attached.dispose()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
