import { createHash } from 'node:crypto'
import { tarGz, type TarEntry } from './bundle-fixtures'

/**
 * A stand-in for the LibreOffice WebAssembly pack with the registry tarball's layout
 * (`package/package.json`, `package/dist/server.cjs`, `package/wasm/…`): tests of the install,
 * the refusals and the worker supervisor run in seconds without the 79 MB download. Its
 * `createWorkerConverter()` is a real module loaded by the real worker process; what it does is
 * chosen by the document's text: `CRASH` ends the process, `CRASH_ONCE` does so on the first try
 * only, `HANG` never answers, `HOG` grows its memory without end, `LOCKED` asks for a password,
 * `ENV` answers with the names of the environment variables the worker was given.
 */
export const FAKE_PACK_SERVER = () => `
'use strict'
// The real pack's one dependency, resolved through the NODE_PATH the engine lends the worker.
const { z } = require('zod')
const fs = require('node:fs')
exports.createWorkerConverter = async (options) => {
  const wasmPath = z.string().parse(options.wasmPath)
  fs.statSync(require('node:path').join(options.wasmPath, 'soffice.wasm'))
  return {
    async convert(input, options) {
      const text = Buffer.from(input).toString('latin1')
      if (text.includes('CRASH_ONCE')) {
        // Kept beside the installed pack: the worker sees none of the test's environment.
        const marker = require('node:path').join(wasmPath, '..', 'crashed-once')
        if (!fs.existsSync(marker)) { fs.writeFileSync(marker, 'x'); process.exit(7) }
      } else if (text.includes('CRASH')) process.exit(7)
      if (text.includes('HANG')) return new Promise(() => {})
      if (text.includes('HOG')) {
        globalThis.hog = []
        for (;;) { globalThis.hog.push(Buffer.alloc(32 * 1024 * 1024, 1)); await new Promise((r) => setTimeout(r, 20)) }
      }
      if (text.includes('ENV')) return { data: Buffer.from(JSON.stringify(Object.keys(process.env))) }
      if (text.includes('LOCKED')) { const e = new Error('This document needs a password.'); e.code = 'PASSWORD_REQUIRED'; throw e }
      if (options.outputFormat === 'pdf' && options.inputFormat !== 'csv') return { data: Buffer.from(${JSON.stringify(onePagePdf('Converted by the fake pack'))}, 'latin1') }
      return { data: Buffer.from('%PDF-1.4 fake ' + options.outputFormat + ' from ' + options.inputFormat + ' pid ' + process.pid) }
    },
    async destroy() {},
  }
}
`

export function packEntries(
  name: string,
  version: string,
  overrides: Partial<Record<string, string>> = {},
): TarEntry[] {
  const files: Record<string, string> = {
    'package/package.json': JSON.stringify({ name, version, license: 'MPL-2.0' }),
    'package/dist/server.cjs': FAKE_PACK_SERVER(),
    'package/wasm/loader.cjs': 'module.exports = {}',
    'package/wasm/soffice.wasm': '\0asm\x01\0\0\0',
    'package/wasm/soffice.data': 'data',
    'package/README.md': 'fake pack',
  }
  const merged = new Map(Object.entries(files))
  for (const [path, content] of Object.entries(overrides)) {
    if (content === undefined) merged.delete(path)
    else merged.set(path, content)
  }
  return [...merged].map(([path, content]) => ({ type: 'file' as const, path, content }))
}

export function fakePack(name: string, version: string, extra: TarEntry[] = []): Buffer {
  return tarGz([...packEntries(name, version), ...extra])
}

export const integrityOf = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`

/** A valid one-page PDF saying `text` (offsets computed, so pdf.js reads it without repair). */
export function onePagePdf(text: string): string {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 24 Tf 72 720 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 24 Tf 72 720 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, index) => {
    offsets.push(body.length)
    body += `${index + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return body
}
