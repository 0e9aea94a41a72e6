import { randomBytes } from 'node:crypto'

/**
 * Same-origin byte transfer for files too large for a protocol message: a short-lived, unguessable
 * ticket names one local file, and the host serves it at `/api/bytes/<ticket>`.
 * (Stand-in shape until the engine-wide byte-transfer route is merged; the URL form is the same.)
 */
export interface ByteTickets {
  issue(file: { path: string; mime: string; size: number }): { url: string; mime: string; size: number }
  resolve(ticket: string): { path: string; mime: string; size: number } | undefined
}

export function createByteTickets(ttlMs = 10 * 60_000): ByteTickets {
  const tickets = new Map<string, { path: string; mime: string; size: number; expires: number }>()
  return {
    issue(file) {
      const now = Date.now()
      for (const [ticket, entry] of tickets) if (entry.expires < now) tickets.delete(ticket)
      const ticket = randomBytes(24).toString('base64url')
      tickets.set(ticket, { ...file, expires: now + ttlMs })
      return { url: `/api/bytes/${ticket}`, mime: file.mime, size: file.size }
    },
    resolve(ticket) {
      const entry = tickets.get(ticket)
      if (!entry || entry.expires < Date.now()) return undefined
      return { path: entry.path, mime: entry.mime, size: entry.size }
    },
  }
}
