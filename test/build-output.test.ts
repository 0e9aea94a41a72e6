import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Worker } from 'node:worker_threads'
import { describe, expect, test } from 'vitest'
import { makeDocx } from './support/office-fixtures'

// `npm test` builds before it runs vitest; these check what the build hands to each shell.
const OUT = join(__dirname, '..', 'out')

describe('build output', () => {
  test('the preload is one self-contained CJS file that needs nothing but electron (sandbox: true)', () => {
    expect(readdirSync(join(OUT, 'preload'))).toEqual(['index.cjs'])
    const preload = readFileSync(join(OUT, 'preload', 'index.cjs'), 'utf8')
    const required = [...preload.matchAll(/require\((["'])([^"']+)\1\)/g)].map((m) => m[2])
    expect(required.length).toBeGreaterThan(0)
    expect(new Set(required)).toEqual(new Set(['electron']))
    expect(preload).not.toMatch(/\bimport\s/)
  })

  test('the browser-mode host never loads electron', () => {
    const files = [
      join(OUT, 'main', 'web.js'),
      ...readdirSync(join(OUT, 'main', 'chunks')).map((f) => join(OUT, 'main', 'chunks', f)),
    ]
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(/require\(["']electron["']\)/)
  })

  test('the app document has no inline script and loads only same-origin modules', () => {
    const html = readFileSync(join(OUT, 'renderer', 'index.html'), 'utf8')
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes = '', body = ''] of scripts) {
      expect(body.trim()).toBe('')
      expect(attributes).toMatch(/src="\.\/assets\//)
    }
  })

  test('Monaco is not in the first-screen script; it loads on demand', () => {
    const html = readFileSync(join(OUT, 'renderer', 'index.html'), 'utf8')
    const entry = html.match(/src="\.\/(assets\/index-[^"]+\.js)"/)?.[1]
    expect(entry).toBeDefined()
    const code = readFileSync(join(OUT, 'renderer', entry ?? ''), 'utf8')
    expect(code).not.toContain('MonacoEnvironment')
    // The text adapter (Monaco) is its own chunk, loaded through the document adapter registry.
    expect(code).toMatch(/text-[\w-]+\.js/)
    // Spec 12: no compressed first-screen script chunk over 350 KiB.
    expect(gzipSync(Buffer.from(code)).length).toBeLessThan(350 * 1024)
  })

  test('the documents worker is built and runs the real formats there, pdf.js included (issue 26)', async () => {
    const worker = new Worker(join(OUT, 'main', 'documents-worker.js'))
    const ask = (job: Record<string, unknown>, transfer: ArrayBuffer[]) =>
      new Promise<{ kind: string; value?: { text?: string } }>((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
        worker.postMessage(job, transfer)
      })
    try {
      const pdf = new Uint8Array(
        readFileSync(join(__dirname, '..', '..', '..', 'shared', 'corpus', 'pdf', 'pdfjs-rotation.pdf')),
      ).buffer
      const pdfView = await ask({ id: 1, op: 'read', format: 'pdf', bytes: pdf, request: { limit: 1 } }, [pdf])
      expect(pdfView).toMatchObject({ kind: 'done', value: { op: 'read' } })
      expect(pdfView.value?.text).toMatch(/^PDF: \d+ page/)
      const docx = new Uint8Array(await makeDocx('<w:p><w:r><w:t>Built and read</w:t></w:r></w:p>')).buffer
      const docxView = await ask({ id: 2, op: 'read', format: 'docx', bytes: docx, request: {} }, [docx])
      expect(docxView.value?.text).toContain('Built and read')
    } finally {
      await worker.terminate()
    }
  })
})
