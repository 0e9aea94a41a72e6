import type { Server } from 'node:http'
import type { Socket } from 'node:net'

export type HostLog = (level: 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void

/**
 * Which connections a loopback port keeps when more arrive than it will hold. Both of browser
 * mode's ports use it: the app port for connections that have not yet shown the token, the Office
 * origin (which has no token) for every connection.
 */
export interface AdmissionLimits {
  /** Connections the gate holds at once, across all peers. */
  readonly maxConnections: number
  /** Connections one peer address holds at once. */
  readonly maxPerPeer: number
  /**
   * A connection is closed this long after it was accepted unless it left the gate (the app port:
   * it showed the token) or is busy (the Office origin: a request is being answered); an idle
   * Office connection gets the same time again after each answer.
   */
  readonly deadlineMs: number
}

export type Admission =
  | { kind: 'admitted'; evicted: number }
  /** Every connection that could make room is busy answering a request. */
  | { kind: 'refused'; reason: 'peer-limit' | 'connection-limit' }

interface Held {
  readonly socket: Socket
  readonly peer: string
  busy: boolean
  timer: NodeJS.Timeout | null
}

export interface ConnectionGate {
  /** Takes a newly accepted connection, making room by closing the oldest idle one if needed. */
  admit(socket: Socket): Admission
  /** The connection proved it may stay (the token): no longer counted, timed or evictable. */
  release(socket: Socket): void
  /** A request is being answered on it: not evictable, no deadline until it is idle again. */
  setBusy(socket: Socket, busy: boolean): void
  /** Connections held now. */
  readonly size: number
  dispose(): void
}

/**
 * Room is made rather than refused: a new connection closes the oldest idle one — of its own peer
 * when that peer is at its share, else of the peer holding the most. An idle token-less socket
 * therefore never keeps a real client out, and one peer cannot fill every slot. The new
 * connection is refused only when every candidate is busy answering a request (the Office
 * origin's concurrent requests, each bounded in time by the deadline and the socket timeout).
 */
export function createConnectionGate(limits: AdmissionLimits): ConnectionGate {
  // Insertion order is age order: the first entry of a peer is its oldest connection.
  const held = new Map<Socket, Held>()
  const perPeer = new Map<string, number>()

  const arm = (entry: Held) => {
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = setTimeout(() => entry.socket.destroy(), limits.deadlineMs)
    entry.timer.unref()
  }
  const forget = (socket: Socket) => {
    const entry = held.get(socket)
    if (!entry) return
    if (entry.timer) clearTimeout(entry.timer)
    held.delete(socket)
    const count = (perPeer.get(entry.peer) ?? 1) - 1
    if (count === 0) perPeer.delete(entry.peer)
    else perPeer.set(entry.peer, count)
  }
  const oldestIdle = (peer: string | null): Held | undefined => {
    for (const entry of held.values()) {
      if (!entry.busy && (peer === null || entry.peer === peer)) return entry
    }
    return undefined
  }
  const evict = (entry: Held) => {
    forget(entry.socket)
    entry.socket.destroy()
  }

  return {
    admit(socket) {
      // A socket closed before it was accepted has no address; it is gone anyway.
      const peer = socket.remoteAddress ?? 'unknown'
      let evicted = 0
      if ((perPeer.get(peer) ?? 0) >= limits.maxPerPeer) {
        const victim = oldestIdle(peer)
        if (!victim) return { kind: 'refused', reason: 'peer-limit' }
        evict(victim)
        evicted++
      }
      if (held.size >= limits.maxConnections) {
        let heaviest: string | null = null
        for (const [candidate, count] of perPeer) {
          if (heaviest === null || count > (perPeer.get(heaviest) ?? 0)) heaviest = candidate
        }
        const victim = oldestIdle(heaviest) ?? oldestIdle(null)
        if (!victim) return { kind: 'refused', reason: 'connection-limit' }
        evict(victim)
        evicted++
      }
      const entry: Held = { socket, peer, busy: false, timer: null }
      held.set(socket, entry)
      perPeer.set(peer, (perPeer.get(peer) ?? 0) + 1)
      arm(entry)
      socket.once('close', () => forget(socket))
      return { kind: 'admitted', evicted }
    },
    release: forget,
    setBusy(socket, busy) {
      const entry = held.get(socket)
      if (!entry || entry.busy === busy) return
      entry.busy = busy
      if (busy) {
        if (entry.timer) clearTimeout(entry.timer)
        entry.timer = null
      } else {
        arm(entry)
      }
    },
    get size() {
      return held.size
    },
    dispose() {
      for (const entry of held.values()) if (entry.timer) clearTimeout(entry.timer)
      held.clear()
      perPeer.clear()
    },
  }
}

/**
 * At the descriptor limit the kernel cannot accept (EMFILE/ENFILE): libuv drops that connection
 * and Node reports it as a server error, which would otherwise end the process. It is logged as
 * what it is, at most every 10 s, and the port keeps serving the connections it has.
 */
export function reportAcceptFailures(server: Server, port: string, log: HostLog): void {
  let lastReport = 0
  server.on('error', (error: NodeJS.ErrnoException) => {
    const now = Date.now()
    if (now - lastReport < 10_000) return
    lastReport = now
    const message =
      error.code === 'EMFILE' || error.code === 'ENFILE'
        ? `Too many open files (${error.code}): the ${port} port refused a connection`
        : `The ${port} port failed to accept a connection`
    log('warn', message, { code: error.code ?? 'UNKNOWN', syscall: error.syscall ?? 'accept' })
  })
}
