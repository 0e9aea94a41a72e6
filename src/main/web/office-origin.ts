import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Core } from '../core'
import { answerOfficeAsset } from '../core/office'
import { allowedHosts } from './access'
import { createConnectionGate, reportAcceptFailures, type AdmissionLimits, type HostLog } from './admission'

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
export async function startOfficeOrigin(options: {
  core: Core
  appOrigin: () => string
  limits: AdmissionLimits
  log: HostLog
}): Promise<OfficeOrigin> {
  let port = 0
  // Anyone on the machine may connect here (there is no token), so every connection is gated:
  // a new one closes the oldest idle one when the port is full, and a connection idle — or not
  // reading an answer — for the deadline is closed. Descriptors stay bounded by the gate, so the
  // engine's own file operations never meet EMFILE because of this port.
  const gate = createConnectionGate(options.limits)
  const server = createServer((request, response) => {
    gate.setBusy(request.socket, true)
    response.once('close', () => gate.setBusy(request.socket, false))
    // Per answer, because Node resets a kept-alive socket's timeout between requests: a reader
    // that stops taking this answer is closed like an idle socket, and its slot is freed.
    response.setTimeout(options.limits.deadlineMs, () => response.destroy())
    void serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end()
      else response.destroy()
    })
  })
  server.headersTimeout = options.limits.deadlineMs
  server.requestTimeout = 60_000
  server.keepAliveTimeout = 5_000
  server.on('connection', (socket: Socket) => {
    if (gate.admit(socket).kind === 'refused') {
      socket.destroy()
      return
    }
    // A reader that stops taking an answer is as idle as a silent socket.
    socket.setTimeout(options.limits.deadlineMs, () => socket.destroy())
  })
  reportAcceptFailures(server, 'Office origin', options.log)

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
      gate.dispose()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
