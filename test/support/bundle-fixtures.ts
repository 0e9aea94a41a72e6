import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

/**
 * Generated ONLYOFFICE-style bundles for installer tests: tar headers are written by hand so a
 * test can make exactly the hostile entries a real archiver would refuse to produce (`..`,
 * absolute paths, symlinks, hard links, devices).
 */

export type TarEntry =
  | { type: 'file'; path: string; content: Buffer | string; mode?: number }
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'symlink' | 'link'; path: string; target: string }
  | { type: 'chardev'; path: string }
  /** A pax extended header (`x`): its body is written by the caller (bombs stream theirs). */
  | { type: 'pax'; path: string }

const TYPEFLAG = { file: '0', link: '1', symlink: '2', chardev: '3', dir: '5', pax: 'x' } as const

/** One 512-byte ustar header; `mode` defaults to 0755 for folders and 0644 otherwise. */
export function tarHeader(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(512)
  const write = (offset: number, length: number, value: string) => block.write(value.slice(0, length), offset, 'utf8')
  const octal = (offset: number, length: number, value: number) =>
    write(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`)
  write(0, 100, entry.path)
  const mode = entry.type === 'file' || entry.type === 'dir' ? entry.mode : undefined
  octal(100, 8, mode ?? (entry.type === 'dir' ? 0o755 : 0o644))
  octal(108, 8, 0)
  octal(116, 8, 0)
  octal(124, 12, size)
  octal(136, 12, 1_700_000_000)
  block.fill(' ', 148, 156)
  write(156, 1, TYPEFLAG[entry.type])
  if (entry.type === 'symlink' || entry.type === 'link') write(157, 100, entry.target)
  write(257, 6, 'ustar\0')
  write(263, 2, '00')
  let sum = 0
  for (const byte of block) sum += byte
  write(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `)
  return block
}

/** The tar stream of `entries`, without the two end-of-archive blocks when `end` is false. */
export function tarBytes(entries: TarEntry[], end = true): Buffer {
  const blocks: Buffer[] = []
  for (const entry of entries) {
    const content = entry.type === 'file' ? Buffer.from(entry.content) : Buffer.alloc(0)
    blocks.push(tarHeader(entry, content.length), content, Buffer.alloc((512 - (content.length % 512)) % 512))
  }
  if (end) blocks.push(Buffer.alloc(1024))
  return Buffer.concat(blocks)
}

export function tarGz(entries: TarEntry[]): Buffer {
  return gzipSync(tarBytes(entries))
}

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')

/** A well-formed bundle: an entry page, a script, a WASM blob and the manifest listing them. */
export function bundleFiles(version: string): Record<string, Buffer> {
  return {
    'index.html': Buffer.from(
      `<!doctype html><title>ONLYOFFICE ${version}</title><script src="web-apps/api.js"></script>`,
    ),
    'web-apps/api.js': Buffer.from(`window.DocsAPI = { version: ${JSON.stringify(version)} }`),
    'x2t/x2t.wasm': Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]),
    'fonts/readme.txt': Buffer.from('fonts with their licences'),
  }
}

export function manifestFor(version: string, files: Record<string, Buffer>, entry = 'index.html'): string {
  return JSON.stringify({
    format: 1,
    engine: 'onlyoffice',
    version,
    entry,
    files: Object.entries(files).map(([path, bytes]) => ({ path, size: bytes.length, sha256: sha256(bytes) })),
  })
}

export function goodBundle(version: string, extra: TarEntry[] = []): Buffer {
  const files = bundleFiles(version)
  return tarGz([
    { type: 'file', path: 'retrace-office-manifest.json', content: manifestFor(version, files) },
    { type: 'dir', path: 'web-apps/' },
    ...Object.entries(files).map(([path, content]) => ({ type: 'file' as const, path, content })),
    ...extra,
  ])
}

export interface BundleServer {
  readonly url: (name: string) => string
  /** What each path serves; `truncateAt` breaks the connection after that many bytes. */
  serve(name: string, body: Buffer, options?: { truncateAt?: number; extraBytes?: number }): void
  readonly hits: Map<string, number>
  close(): Promise<void>
}

export async function startBundleServer(): Promise<BundleServer> {
  const routes = new Map<string, { body: Buffer; truncateAt?: number; extraBytes?: number }>()
  const hits = new Map<string, number>()
  const server: Server = createServer((request, response) => {
    const name = (request.url ?? '/').slice(1)
    hits.set(name, (hits.get(name) ?? 0) + 1)
    const route = routes.get(name)
    if (!route) {
      response.writeHead(404).end()
      return
    }
    if (route.truncateAt !== undefined) {
      response.writeHead(200, { 'Content-Length': String(route.body.length) })
      response.write(route.body.subarray(0, route.truncateAt), () => response.destroy())
      return
    }
    const body = route.extraBytes ? Buffer.concat([route.body, Buffer.alloc(route.extraBytes, 1)]) : route.body
    // Oversized bodies are sent chunked (no Content-Length), so only the streaming cap can stop them.
    response.writeHead(200, route.extraBytes ? {} : { 'Content-Length': String(body.length) })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    serve: (name, body, options = {}) => routes.set(name, { body, ...options }),
    hits,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
