import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { pdfjsAssets } from './scripts/pdfjs-assets'

/**
 * One build for both shells: `out/main/electron.js` (desktop main process), `out/main/web.js`
 * (browser-mode host), `out/preload/index.cjs` (sandboxed preload: one self-contained CJS file),
 * `out/renderer/` (the React app, identical in both shells).
 */
export default defineConfig({
  main: {
    build: {
      rolldownOptions: {
        input: {
          electron: resolve(__dirname, 'src/main/electron/main.ts'),
          web: resolve(__dirname, 'src/main/web/main.ts'),
          // Loaded by path as a worker_threads script (review diffs off the main thread).
          'diff-worker': resolve(__dirname, 'src/main/core/review/diff-worker.ts'),
          // The project search's walk and ranking (files.search), off the main thread.
          'search-worker': resolve(__dirname, 'src/main/core/files/search-worker.ts'),
          // Office inspection (office.inspect/preview/convert) under byte, ratio, time and heap bounds.
          'office-inspect-worker': resolve(__dirname, 'src/main/core/office/inspect-worker.ts'),
          // DOCX/XLSX/PPTX/PDF views, edits and diffs (issue 26) under time, byte and heap bounds.
          'documents-worker': resolve(__dirname, 'src/main/core/documents/document-worker.ts'),
          // The LibreOffice WebAssembly pack's worker PROCESS (forked, memory-capped, idle-stopped).
          'office-pack-worker': resolve(__dirname, 'src/main/core/office/pack/worker.ts'),
          // The agent's grep/glob patterns, matched where a budget can stop them (issue 23).
          'pattern-worker': resolve(__dirname, 'src/main/core/files/pattern-worker.mts'),
        },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: false,
      isolatedEntries: true,
      rolldownOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    // pdf.js is staged as published (legacy build) at /document-assets/pdfjs/, not bundled.
    plugins: [react(), pdfjsAssets({ packageDir: resolve(__dirname, 'node_modules/pdfjs-dist') })],
    build: {
      rolldownOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
      // Fonts stay files: a data: URL font is refused by the CSP's font-src 'self' (KaTeX's small ones).
      assetsInlineLimit: (file: string) => (file.endsWith('.woff2') ? false : undefined),
    },
    worker: { format: 'es' },
    resolve: {
      // tui-image-editor's built-in UI (unused) needs the colour picker, whose global shim calls
      // `new Function` under the CSP: an empty stand-in (stubs/tui-color-picker).
      alias: { 'tui-color-picker': resolve(__dirname, 'stubs/tui-color-picker/index.js') },
    },
  },
})
