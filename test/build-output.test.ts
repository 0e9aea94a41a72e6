import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'

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
})
