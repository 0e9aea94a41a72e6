import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { pipeline } from 'node:stream/promises'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import { appContentSecurityPolicy } from '../../shared/csp'
import { BYTES_ROUTE, type Core } from '../core'
import { createConnectionGate, reportAcceptFailures, type HostLog } from './admission'
import { decideAccess, readCookie, tokenCookieName, type AccessDecision } from './access'
import { ProjectSubscriptions, resolveStaticFile } from '../hosting'
import { startOfficeOrigin, type OfficeOrigin } from './office-origin'
import { answerSessionRoute, SESSION_ROUTE } from './session-routes'

export const WEBSOCKET_PATH = '/api/ws'
/** A script's body for the session routes (a part id and a key). */
const MAX_ROUTE_BODY_BYTES = 64 * 1024
/** Large enough for a 64 MiB file sent base64-encoded in one `files.write`. */
const MAX_FRAME_BYTES = 96 * 1024 * 1024

/**
 * Limits that keep one client from exhausting the process (spec 11 "Browser-mode host"). Until a
 * connection shows the token it is held by the pre-auth gate: timed from its accept, counted per
 * peer and in all, and when the gate is full a new connection closes the oldest token-less one
 * instead of being refused — idle sockets never keep the real window out. Once a connection
 * shows the token it leaves the gate; only the token holder gets there.
 */
export const HOST_LIMITS = {
  /** Connections that have not (yet) shown the token, at once; a new one closes the oldest. */
  maxPreAuthConnections: 128,
  /**
   * Of those, from one peer address. Every local process and the browser share 127.0.0.1, so
   * this mostly stops a flood from other 127.x addresses from taking the whole gate.
   */
  maxPreAuthPerPeer: 64,
  /**
   * A connection must show the token (a request or the WebSocket upgrade) this soon after it was
   * accepted — a browser does it within milliseconds; a silent or trickling socket is closed.
   */
  preAuthDeadlineMs: 5_000,
  /**
   * A new connection (on either port) is not closed to make room for this long: time to send its
   * request. Past it, silent sockets are the first to go.
   */
  admissionGraceMs: 500,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  /**
   * A byte transfer whose reader takes nothing for this long is cut (its transfer turn and
   * descriptor are released; a media element asks again with a Range when it resumes).
   */
  transferStallMs: 60_000,
  /** Bytes queued for a WebSocket client past which we stop reading its requests. */
  pauseAboveBytes: 16 * 1024 * 1024,
  resumeBelowBytes: 4 * 1024 * 1024,
  /**
   * Bytes handed to a client's socket at once; further answers wait, in order, in its outbox
   * (one frame always goes, however large). A client that reads is slowed down, never dropped.
   */
  socketQueueBytes: 64 * 1024 * 1024,
  /**
   * A memory fuse: a client whose unsent answers (socket queue + outbox) pass this is disconnected.
   * Answers are produced at most `maxRequestsInFlight` at a time and no new request starts while
   * `pauseAboveBytes` are unsent, so a client that reads gets here only with more than a dozen
   * maximum-size (64 MiB) reads outstanding at once and not reading.
   */
  disconnectAboveBytes: 1024 * 1024 * 1024,
  /** Requests of one WebSocket in progress at once; more wait in its queue (and reading pauses). */
  maxRequestsInFlight: 32,
  /** A client with more than `pauseAboveBytes` unsent that takes nothing for this long is disconnected. */
  stallTimeoutMs: 30_000,
  /** The Office origin has no token: every connection is gated, per peer and in all. */
  officeMaxConnections: 64,
  officeMaxPerPeer: 32,
  /** An Office-origin connection idle (or not reading an answer) this long is closed. */
  officeIdleMs: 15_000,
} as const

export type HostLimits = Record<keyof typeof HOST_LIMITS, number>

export interface WebHostOptions {
  readonly core: Core
  readonly rendererDir: string
  /** 0 picks a free port. */
  readonly port?: number
  /**
   * With port 0: the port to try first (the one the last run used), so the window's address — and
   * the browser storage that restores its tabs — stays the same across restarts. Taken, a free
   * port is picked instead.
   */
  readonly preferredPort?: number
  readonly token?: string
  readonly limits?: Partial<HostLimits>
  /** Where the host reports what it refused for lack of resources (EMFILE at accept). */
  readonly log?: HostLog
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
  const limits = { ...HOST_LIMITS, ...options.limits }
  const token = options.token ?? randomBytes(24).toString('base64url')
  let port = 0
  const log = options.log ?? (() => {})
  const office: OfficeOrigin = await startOfficeOrigin({
    core: options.core,
    appOrigin: () => `http://127.0.0.1:${port}`,
    limits: {
      maxConnections: limits.officeMaxConnections,
      maxPerPeer: limits.officeMaxPerPeer,
      deadlineMs: limits.officeIdleMs,
      graceMs: limits.admissionGraceMs,
    },
    log,
  })
  const csp = appContentSecurityPolicy({ officeOrigin: office.origin })
  const sockets = new Set<WebSocket>()
  const preAuth = createConnectionGate({
    maxConnections: limits.maxPreAuthConnections,
    maxPerPeer: limits.maxPreAuthPerPeer,
    deadlineMs: limits.preAuthDeadlineMs,
    graceMs: limits.admissionGraceMs,
  })
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })

  const decide = (request: IncomingMessage, url: URL): AccessDecision => {
    // Node keeps only the first of duplicate Host headers; a request carrying two is ambiguous
    // about where it is going (a rebinding trick), so it is refused outright.
    if ((request.headersDistinct.host?.length ?? 0) > 1) return { kind: 'deny', status: 403, reason: 'host' }
    return decideAccess(
      { port, token },
      {
        host: request.headers.host,
        origin: request.headers.origin,
        queryToken: url.searchParams.get('token'),
        cookieToken: readCookie(request.headers.cookie, tokenCookieName(port)),
      },
    )
  }

  const server = createServer((request, response) => {
    void serveHttp(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end()
      else response.destroy()
    })
  })
  server.headersTimeout = limits.headersTimeoutMs
  server.requestTimeout = limits.requestTimeoutMs
  server.keepAliveTimeout = 5_000

  server.on('connection', (socket: Socket) => {
    if (preAuth.admit(socket).kind === 'refused') socket.destroy()
  })
  reportAcceptFailures(server, 'app', log)

  async function serveHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const baseHeaders = {
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    }
    const route = request.method === 'POST' ? SESSION_ROUTE.exec(url.pathname) : null
    if (route) {
      await serveSessionRoute(request, response, url, route, baseHeaders)
      return
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
    preAuth.release(request.socket)
    if (url.pathname.startsWith(BYTES_ROUTE)) {
      await serveBytes(request, response, url.pathname.slice(BYTES_ROUTE.length), baseHeaders)
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

  /**
   * Spec 06's script endpoints, behind the same token/Host/Origin checks as every other request
   * (a browser page of another origin is refused; the cookie is SameSite=Strict).
   */
  async function serveSessionRoute(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    route: RegExpExecArray,
    baseHeaders: Record<string, string>,
  ): Promise<void> {
    const json = (status: number, body: unknown) =>
      response
        .writeHead(status, {
          ...baseHeaders,
          'Content-Type': 'application/json; charset=utf-8',
          'Cache-Control': 'no-store',
        })
        .end(JSON.stringify(body))
    const access = decide(request, url)
    if (access.kind === 'deny') {
      json(access.status, { error: { code: 'PERMISSION_DENIED', message: `Forbidden (${access.reason}).` } })
      return
    }
    preAuth.release(request.socket)
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_ROUTE_BODY_BYTES) {
        json(413, { error: { code: 'TOO_LARGE', message: 'The request body is too large.' } })
        request.destroy()
        return
      }
      chunks.push(chunk)
    }
    const text = Buffer.concat(chunks).toString('utf8').trim()
    let body: unknown = {}
    try {
      if (text !== '') body = JSON.parse(text)
    } catch {
      body = null
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      json(400, { error: { code: 'INVALID_REQUEST', message: 'The body must be a JSON object (or empty).' } })
      return
    }
    const header = request.headers['idempotency-key']
    const answer = await answerSessionRoute(
      options.core,
      route[1] as string,
      route[2] as 'revert' | 'unrevert',
      body as Record<string, unknown>,
      typeof header === 'string' ? header : undefined,
    )
    json(answer.status, answer.body)
  }

  /**
   * Streams a byte transfer at the client's pace: the pipeline asks the body for the next chunk
   * only once the socket took the last one, so a paused reader holds a chunk or two, not the file.
   */
  async function serveBytes(
    request: IncomingMessage,
    response: ServerResponse,
    ticketId: string,
    baseHeaders: Record<string, string>,
  ): Promise<void> {
    const answer = await options.core.serveBytes(ticketId, {
      range: request.headers.range,
      head: request.method === 'HEAD',
    })
    response.writeHead(answer.status, { ...baseHeaders, ...answer.headers })
    if (answer.body === null) {
      response.end()
      return
    }
    // The status goes out now, even while the transfer waits for its turn.
    response.flushHeaders()
    response.setTimeout(limits.transferStallMs, () => response.destroy())
    try {
      await pipeline(answer.body, response)
    } catch {
      // The bytes changed mid-transfer, the reader stalled or went away: the response is cut,
      // never completed.
      response.destroy()
    }
  }

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const access = decide(request, url)
    if (url.pathname !== WEBSOCKET_PATH || access.kind === 'deny') {
      const status = url.pathname !== WEBSOCKET_PATH ? '404 Not Found' : '403 Forbidden'
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      return
    }
    preAuth.release(socket)
    wss.handleUpgrade(request, socket, head, (ws) => attach(ws))
  })

  /**
   * Per-client flow control. Requests wait in the client's own queue and start only while fewer
   * than `maxRequestsInFlight` run and its unsent answers stay under `pauseAboveBytes`: a client
   * that stops reading stops getting work done (and, its queue full, stops being read — TCP pushes
   * back). Answers go to the socket up to `socketQueueBytes` at a time and wait in order in the
   * outbox beyond that, so a client that asked for several large answers at once gets them all as
   * fast as it reads. One that takes nothing for `stallTimeoutMs` while over `pauseAboveBytes` is
   * disconnected and its memory returned.
   */
  interface Flow {
    readonly subscriptions: ProjectSubscriptions
    /** Bytes handed to the socket and not yet written out. */
    queued: number
    readonly outbox: string[]
    outboxBytes: number
    inFlight: number
    readonly waiting: Array<{ data: RawData; isBinary: boolean }>
    paused: boolean
    /** When the client last took a frame (or started owing us nothing). */
    lastProgress: number
  }
  const flows = new WeakMap<WebSocket, Flow>()
  const unsent = (flow: Flow) => flow.queued + flow.outboxBytes
  const stallCheck = setInterval(
    () => {
      const now = Date.now()
      for (const ws of sockets) {
        const flow = flows.get(ws)
        if (flow && unsent(flow) > limits.pauseAboveBytes && now - flow.lastProgress > limits.stallTimeoutMs) drop(ws)
      }
    },
    Math.min(1000, limits.stallTimeoutMs),
  ).unref()

  function attach(ws: WebSocket): void {
    sockets.add(ws)
    flows.set(ws, {
      subscriptions: new ProjectSubscriptions(),
      queued: 0,
      outbox: [],
      outboxBytes: 0,
      inFlight: 0,
      waiting: [],
      paused: false,
      lastProgress: Date.now(),
    })
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const flow = flows.get(ws)
      if (!flow) return
      flow.waiting.push({ data, isBinary })
      pump(ws, flow)
    })
    ws.on('close', () => drop(ws))
    ws.on('error', () => drop(ws))
  }

  function drop(ws: WebSocket): void {
    sockets.delete(ws)
    const flow = flows.get(ws)
    if (flow) {
      flow.waiting.length = 0
      flow.outbox.length = 0
      flow.outboxBytes = 0
    }
    flows.delete(ws)
    if (ws.readyState !== ws.CLOSED) ws.terminate()
  }

  function pump(ws: WebSocket, flow: Flow): void {
    while (
      flow.waiting.length > 0 &&
      flow.inFlight < limits.maxRequestsInFlight &&
      unsent(flow) <= limits.pauseAboveBytes &&
      ws.readyState === ws.OPEN
    ) {
      const next = flow.waiting.shift() as { data: RawData; isBinary: boolean }
      void answer(ws, flow, next.data, next.isBinary)
    }
    const congested = flow.waiting.length >= limits.maxRequestsInFlight || unsent(flow) > limits.pauseAboveBytes
    if (congested && !flow.paused) {
      flow.paused = true
      ws.pause()
    } else if (!congested && flow.paused && unsent(flow) < limits.resumeBelowBytes) {
      flow.paused = false
      ws.resume()
    }
  }

  /** Queues a frame for the client: to its socket when there is room, else to its outbox. */
  function send(ws: WebSocket, text: string): void {
    const flow = flows.get(ws)
    if (!flow || ws.readyState !== ws.OPEN) return
    const bytes = Buffer.byteLength(text)
    if (unsent(flow) + bytes > limits.disconnectAboveBytes) {
      drop(ws)
      return
    }
    if (unsent(flow) === 0) flow.lastProgress = Date.now()
    flow.outbox.push(text)
    flow.outboxBytes += bytes
    flush(ws, flow)
  }

  function flush(ws: WebSocket, flow: Flow): void {
    while (flow.outbox.length > 0 && ws.readyState === ws.OPEN) {
      const text = flow.outbox[0] as string
      const bytes = Buffer.byteLength(text)
      if (flow.queued > 0 && flow.queued + bytes > limits.socketQueueBytes) return
      flow.outbox.shift()
      flow.outboxBytes -= bytes
      flow.queued += bytes
      ws.send(text, () => {
        flow.queued -= bytes
        flow.lastProgress = Date.now()
        flush(ws, flow)
        pump(ws, flow)
      })
    }
  }

  async function answer(ws: WebSocket, flow: Flow, data: RawData, isBinary: boolean): Promise<void> {
    flow.inFlight++
    try {
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
      flow.subscriptions.noteRequest(parsed)
      const response = await options.core.handle(parsed)
      flow.subscriptions.noteResponse(response)
      send(ws, JSON.stringify(response))
    } finally {
      flow.inFlight--
      pump(ws, flow)
    }
  }

  // Events go only to clients that opened the event's project (spec 02).
  const subscription = options.core.onEvent((frame) => {
    let text: string | undefined
    for (const ws of sockets) {
      if (!flows.get(ws)?.subscriptions.wants(frame)) continue
      text ??= JSON.stringify(frame)
      send(ws, text)
    }
  })

  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  const preferred = (options.port ?? 0) === 0 ? options.preferredPort : undefined
  if (preferred !== undefined) await listen(preferred).catch(() => listen(0))
  else await listen(options.port ?? 0)
  port = (server.address() as AddressInfo).port

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    officeOrigin: office.origin,
    async close() {
      await office.close()
      preAuth.dispose()
      subscription.dispose()
      clearInterval(stallCheck)
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
