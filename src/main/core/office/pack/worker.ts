// The LibreOffice WebAssembly pack's worker PROCESS (spec 10): forked by `pack/converter.ts`, one
// per engine, so the pack's ~1.8 GB and any crash of its WASM stay out of the engine. Loaded by
// path: from the build (out/main/office-pack-worker.js) or, under tests, from this source through
// tsx. It loads the installed pack's own `/server` entry by absolute path; the parent names the
// pack folder in RETRACE_OFFICE_PACK_DIR and lends its `zod` through NODE_PATH (the pack's one
// dependency — the tarball is installed alone, without a node_modules of its own).
import { createRequire } from 'node:module'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PackReply, PackRequest } from './messages'

interface PackConverter {
  convert(
    input: Uint8Array,
    options: { outputFormat: string; inputFormat?: string },
    filename?: string,
  ): Promise<{ data: Uint8Array }>
  destroy(): Promise<void>
}

interface PackServer {
  createWorkerConverter(options: { wasmPath: string }): Promise<PackConverter>
}

const packageDir = process.env.RETRACE_OFFICE_PACK_DIR ?? ''
const maxOutputBytes = Number(process.env.RETRACE_OFFICE_PACK_MAX_OUTPUT ?? 512 * 1024 * 1024)

function send(reply: PackReply): void {
  process.send?.(reply)
}

async function main(): Promise<void> {
  const requireFromPack = createRequire(join(packageDir, 'package.json'))
  const server = requireFromPack('./dist/server.cjs') as PackServer
  const converter = await server.createWorkerConverter({ wasmPath: join(packageDir, 'wasm') })
  send({ type: 'ready' })
  // One job at a time: the parent queues; a second message meanwhile would be a parent bug.
  process.on('message', (message: PackRequest) => {
    if (message.type !== 'convert') return
    void (async () => {
      try {
        const input = await readFile(message.input)
        const result = await converter.convert(
          input,
          { outputFormat: message.outputFormat, inputFormat: message.inputFormat },
          `source.${message.inputFormat}`,
        )
        if (result.data.byteLength > maxOutputBytes) {
          send({
            type: 'done',
            id: message.id,
            ok: false,
            code: 'TOO_LARGE',
            message: `The result is larger than ${maxOutputBytes} bytes.`,
          })
          return
        }
        await writeFile(message.output, result.data, { mode: 0o600 })
        send({ type: 'done', id: message.id, ok: true })
      } catch (error) {
        const code = (error as { code?: unknown }).code
        send({
          type: 'done',
          id: message.id,
          ok: false,
          code: typeof code === 'string' ? code : 'UNKNOWN',
          message: error instanceof Error ? error.message : String(error),
        })
      }
    })()
  })
}

// The parent watches memory from here: RSS covers the pack's WASM heaps and its threads, which
// --max-old-space-size does not.
setInterval(() => send({ type: 'rss', rss: process.memoryUsage().rss }), 500).unref()
// An engine that went away takes its worker with it.
process.on('disconnect', () => process.exit(0))
main().catch((error: unknown) => {
  send({ type: 'failed-start', message: error instanceof Error ? error.message : String(error) })
  process.exit(3)
})
