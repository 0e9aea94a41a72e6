import { timingSafeEqual } from 'node:crypto'

export interface AccessPolicy {
  readonly port: number
  readonly token: string
}

export interface RequestFacts {
  readonly host: string | undefined
  readonly origin: string | undefined
  readonly queryToken: string | null
  readonly cookieToken: string | undefined
}

export type AccessDecision =
  { kind: 'allow'; grantCookie: boolean } | { kind: 'deny'; status: 403; reason: 'host' | 'origin' | 'token' }

/** Cookies are shared across ports on one host, so the cookie name carries the port. */
export function tokenCookieName(port: number): string {
  return `retrace_token_${port}`
}

export function allowedHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`]
}

/**
 * Spec 11: a request must name the loopback host (DNS-rebinding defence), come from our own
 * origin when a browser says where it comes from, and carry the per-launch token — in the URL the
 * host printed, or in the cookie the first such page load set. A client that sends no Origin at
 * all (a script, not a browser page) is judged by Host and token alone.
 */
export function decideAccess(policy: AccessPolicy, facts: RequestFacts): AccessDecision {
  const hosts = allowedHosts(policy.port)
  if (facts.host === undefined || !hosts.includes(facts.host)) return { kind: 'deny', status: 403, reason: 'host' }
  if (facts.origin !== undefined && !hosts.some((h) => facts.origin === `http://${h}`)) {
    return { kind: 'deny', status: 403, reason: 'origin' }
  }
  if (facts.queryToken !== null) {
    return sameSecret(facts.queryToken, policy.token)
      ? { kind: 'allow', grantCookie: true }
      : { kind: 'deny', status: 403, reason: 'token' }
  }
  if (facts.cookieToken !== undefined && sameSecret(facts.cookieToken, policy.token)) {
    return { kind: 'allow', grantCookie: false }
  }
  return { kind: 'deny', status: 403, reason: 'token' }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
