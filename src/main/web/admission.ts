import type { Server } from 'node:http'
import type { Socket } from 'node:net'

export type HostLog = (level: 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void

/**
 * Which connections a loopback port keeps when more arrive than it should hold. Both of browser
 * mode's ports use it: the app port for connections that have not yet shown the token, the Office
 * origin (which has no token) for every connection.
 */
export interface AdmissionLimits {
  /** Connections held at once, across all peers, before new ones start closing old ones. */
  readonly maxConnections: number
  /** The same for one peer address. */
  readonly maxPerPeer: number
  /**
   * A connection is closed this long after it was accepted unless it left the gate (the app port:
   * it showed the token) or is busy (the Office origin: a request is being answered); an idle
   * Office connection gets the same time again after each answer.
   */
  readonly deadlineMs: number
  /** How long a new connection is safe from being closed to make room: time to send its request. */
  readonly graceMs: number
}

/**
 * Past `maxConnections` (or `maxPerPeer`) a new connection closes the oldest one that has had its
 * grace; only past this many times the limit does it close one still within its grace. The hard
 * ceiling bounds descriptors; the soft limit keeps a connection that is about to speak from being
 * pushed out by a stream of silent ones arriving right behind it.
 */
export const HARD_LIMIT_FACTOR = 4

export type Admission =
  | { kind: 'admitted'; evicted: number }
  /** Past the hard ceiling and every held connection is busy answering a request. */
  | { kind: 'refused'; reason: 'peer-limit' | 'connection-limit' }

interface Held {
  readonly socket: Socket
  readonly peer: string
  readonly admittedAt: number
  busy: boolean
  timer: NodeJS.Timeout | null
}

export interface ConnectionGate {
  /** Takes a newly accepted connection, making room by closing an old idle one if needed. */
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
 * Room is made rather than refused: a new connection closes the oldest idle one that has had its
 * grace — of its own peer when that peer is at its share, else of the peer holding the most. Idle
 * token-less sockets therefore never keep a real client out, and one peer cannot fill every
 * slot. A new connection is refused only past the hard ceiling with every held one busy (the
 * Office origin's requests in progress, each bounded by the socket timeout).
 */
export function createConnectionGate(limits: AdmissionLimits): ConnectionGate {
  // Insertion order is age order: the first matching entry is the oldest.
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
  const oldestIdle = (peer: string | null, agedBefore: number): Held | undefined => {
    for (const entry of held.values()) {
      if (!entry.busy && entry.admittedAt <= agedBefore && (peer === null || entry.peer === peer)) return entry
    }
    return undefined
  }
  /** Closes one connection of `peer` (null: the heaviest peer, then anyone); false if none may go. */
  const makeRoom = (peer: string | null, count: number, limit: number, now: number): boolean => {
    if (count < limit) return true
    const heaviest = peer ?? heaviestPeer()
    const aged = now - limits.graceMs
    let victim = oldestIdle(heaviest, aged) ?? (peer === null ? oldestIdle(null, aged) : undefined)
    if (!victim && count >= limit * HARD_LIMIT_FACTOR) victim = oldestIdle(peer, Number.POSITIVE_INFINITY)
    if (!victim) return count < limit * HARD_LIMIT_FACTOR
    forget(victim.socket)
    victim.socket.destroy()
    return true
  }
  const heaviestPeer = (): string | null => {
    let heaviest: string | null = null
    for (const [candidate, count] of perPeer) {
      if (heaviest === null || count > (perPeer.get(heaviest) ?? 0)) heaviest = candidate
    }
    return heaviest
  }

  return {
    admit(socket) {
      // A socket reset before it was accepted has no address; it is gone anyway.
      const peer = socket.remoteAddress ?? 'unknown'
      const now = Date.now()
      const before = held.size
      if (!makeRoom(peer, perPeer.get(peer) ?? 0, limits.maxPerPeer, now)) {
        return { kind: 'refused', reason: 'peer-limit' }
      }
      if (!makeRoom(null, held.size, limits.maxConnections, now)) {
        return { kind: 'refused', reason: 'connection-limit' }
      }
      const entry: Held = { socket, peer, admittedAt: now, busy: false, timer: null }
      held.set(socket, entry)
      perPeer.set(peer, (perPeer.get(peer) ?? 0) + 1)
      arm(entry)
      socket.once('close', () => forget(socket))
      return { kind: 'admitted', evicted: before - held.size + 1 }
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
 * At the descriptor limit the kernel cannot accept (EMFILE/ENFILE). libuv usually drops such a
 * connection quietly (it keeps a spare descriptor for that); when it cannot, Node reports the
 * failure as a server error, which with no listener would end the process. It is logged as what
 * it is, at most every 10 s, and the port keeps serving the connections it has.
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
