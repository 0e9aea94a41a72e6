import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Configuration, FileAssociation } from 'electron-builder'

/**
 * Packaging (spec 01/11): `npm run dist` hands this file to electron-builder. Everything a package
 * contains is decided here; `test/packaging.test.ts` checks it without downloading anything.
 */

const repoRoot = join(__dirname, '..')

/**
 * The npm packages the main process loads at run time (the build keeps them external; see
 * `out/main/*.js`). `test/packaging.test.ts` fails when the build needs one that is not listed.
 * Every other runtime dependency is bundled into the renderer by Vite, so the package leaves its
 * `node_modules` copy out (Monaco alone is ~100 MB).
 */
export const MAIN_PROCESS_PACKAGES = [
  '@ai-sdk/anthropic',
  '@ai-sdk/openai-compatible',
  // The documents worker (issue 26): XLSX recalculation.
  '@formulajs/formulajs',
  '@zip.js/zip.js',
  'ai',
  'cfb',
  'chokidar',
  'diff',
  'fast-formula-parser',
  'fast-myers-diff',
  'fuzzysort',
  'ignore',
  'lru-cache',
  'mime-types',
  // The documents worker reads, annotates and compares PDFs with pdf.js (the renderer has its own copy staged).
  'pdfjs-dist',
  'picomatch',
  'tar',
  'ws',
  'zod',
] as const

/**
 * Packages the main process runs as programs rather than loads: found with `require.resolve`, so the
 * bundle scan does not see them. `@vscode/ripgrep`'s per-platform package holds the `rg` that
 * content search runs (docs/search.md).
 */
export const MAIN_PROCESS_BINARIES = ['@vscode/ripgrep'] as const

interface Manifest {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

function manifestOf(name: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as Manifest
  } catch {
    return undefined // an optional dependency for another platform
  }
}

/** A package and everything it depends on, as installed at the top of node_modules. */
function closure(roots: readonly string[]): Set<string> {
  const seen = new Set<string>()
  const queue = [...roots]
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name)) continue
    seen.add(name)
    const manifest = manifestOf(name)
    queue.push(...Object.keys({ ...manifest?.dependencies, ...manifest?.optionalDependencies }))
  }
  return seen
}

/**
 * Optional dependencies of main-process packages the engine never loads: pdf.js's native canvas
 * (`@napi-rs/canvas`) is only for drawing pages, which the documents worker never does — and a
 * native module inside app.asar could not load anyway.
 */
const NEVER_SHIPPED = ['@napi-rs/canvas']

/** Runtime dependencies (and their own dependencies) that only the renderer bundle uses. */
export function rendererOnlyPackages(): string[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest
  const main = closure([...MAIN_PROCESS_PACKAGES, ...MAIN_PROCESS_BINARIES])
  for (const name of NEVER_SHIPPED) for (const part of closure([name])) main.delete(part)
  const all = closure(Object.keys(manifest.dependencies ?? {}))
  return [...all].filter((name) => !main.has(name)).sort()
}

/**
 * Every document type Retrace opens (the adapter registry: text and Markdown, CSV/TSV/JSON as
 * text, PDF, Office — OOXML, ODF, legacy binary and RTF —, images including PSD and TIFF, audio and
 * video the window plays). Opening one of them with Retrace opens its project folder and the file
 * in a tab (`src/main/electron/launch.ts`). An adapter issue that adds a format adds its row here.
 * On macOS Retrace is only an alternate handler: installing it never takes a type over.
 * Decision: templates and macro-enabled variants (.dotx, .xlsm…) open too when dragged in, but are
 * not claimed — a person double-clicking a template expects a new document, which is Office's job.
 * Matroska and QuickTime are not claimed either: whether they play depends on their codecs.
 */
export const FILE_ASSOCIATIONS: readonly FileAssociation[] = [
  { ext: 'pdf', name: 'PDF document', mimeType: 'application/pdf', role: 'Viewer', rank: 'Alternate' },
  { ext: ['md', 'markdown'], name: 'Markdown document', mimeType: 'text/markdown', role: 'Editor', rank: 'Alternate' },
  { ext: 'txt', name: 'Plain text', mimeType: 'text/plain', role: 'Editor', rank: 'Alternate' },
  { ext: 'csv', name: 'CSV table', mimeType: 'text/csv', role: 'Editor', rank: 'Alternate' },
  { ext: 'tsv', name: 'TSV table', mimeType: 'text/tab-separated-values', role: 'Editor', rank: 'Alternate' },
  { ext: 'json', name: 'JSON document', mimeType: 'application/json', role: 'Editor', rank: 'Alternate' },
  { ext: 'png', name: 'PNG image', mimeType: 'image/png', role: 'Viewer', rank: 'Alternate' },
  { ext: ['jpg', 'jpeg'], name: 'JPEG image', mimeType: 'image/jpeg', role: 'Viewer', rank: 'Alternate' },
  { ext: 'gif', name: 'GIF image', mimeType: 'image/gif', role: 'Viewer', rank: 'Alternate' },
  { ext: 'webp', name: 'WebP image', mimeType: 'image/webp', role: 'Viewer', rank: 'Alternate' },
  { ext: 'bmp', name: 'BMP image', mimeType: 'image/bmp', role: 'Viewer', rank: 'Alternate' },
  { ext: 'svg', name: 'SVG image', mimeType: 'image/svg+xml', role: 'Viewer', rank: 'Alternate' },
  { ext: 'ico', name: 'Icon', mimeType: 'image/vnd.microsoft.icon', role: 'Viewer', rank: 'Alternate' },
  { ext: 'avif', name: 'AVIF image', mimeType: 'image/avif', role: 'Viewer', rank: 'Alternate' },
  { ext: ['tif', 'tiff'], name: 'TIFF image', mimeType: 'image/tiff', role: 'Viewer', rank: 'Alternate' },
  { ext: 'psd', name: 'Photoshop document', mimeType: 'image/vnd.adobe.photoshop', role: 'Viewer', rank: 'Alternate' },
  office('docx', 'Word document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
  office('xlsx', 'Excel workbook', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  office(
    'pptx',
    'PowerPoint presentation',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ),
  office('odt', 'OpenDocument text', 'application/vnd.oasis.opendocument.text'),
  office('ods', 'OpenDocument spreadsheet', 'application/vnd.oasis.opendocument.spreadsheet'),
  office('odp', 'OpenDocument presentation', 'application/vnd.oasis.opendocument.presentation'),
  office('doc', 'Word 97–2003 document', 'application/msword'),
  office('xls', 'Excel 97–2003 workbook', 'application/vnd.ms-excel'),
  office('ppt', 'PowerPoint 97–2003 presentation', 'application/vnd.ms-powerpoint'),
  office('rtf', 'Rich Text document', 'application/rtf'),
  { ext: 'mp3', name: 'MP3 audio', mimeType: 'audio/mpeg', role: 'Viewer', rank: 'Alternate' },
  { ext: 'wav', name: 'WAV audio', mimeType: 'audio/wav', role: 'Viewer', rank: 'Alternate' },
  { ext: ['ogg', 'oga'], name: 'Ogg audio', mimeType: 'audio/ogg', role: 'Viewer', rank: 'Alternate' },
  { ext: 'flac', name: 'FLAC audio', mimeType: 'audio/flac', role: 'Viewer', rank: 'Alternate' },
  { ext: 'm4a', name: 'MPEG-4 audio', mimeType: 'audio/mp4', role: 'Viewer', rank: 'Alternate' },
  { ext: 'mp4', name: 'MPEG-4 video', mimeType: 'video/mp4', role: 'Viewer', rank: 'Alternate' },
  { ext: 'webm', name: 'WebM video', mimeType: 'video/webm', role: 'Viewer', rank: 'Alternate' },
]

/** An Office format Retrace edits (spec: Office documents are edited locally). */
function office(ext: string, name: string, mimeType: string): FileAssociation {
  return { ext, name, mimeType, role: 'Editor', rank: 'Alternate' }
}

/**
 * Only ripgrep's binary is unpacked from the asar: a program cannot be executed from inside the
 * archive (`bundledRipgrep()` looks in `app.asar.unpacked`). Everything else loads from the archive
 * and stays covered by ASAR integrity: the main process's `worker_threads` scripts (Electron
 * initialises asar support in worker threads since 17/18, electron#33216), and the pdf.js worker,
 * a renderer Web Worker fetched over `app://` like every other renderer file. No package ships a
 * native module.
 */
export const ASAR_UNPACK: readonly string[] = ['node_modules/@vscode/ripgrep-*/bin/*']

/**
 * Electron fuses (spec 11), flipped in the packaged binary before signing. Every fuse that
 * @electron/fuses knows is set explicitly, so the test can ask for a complete wire.
 */
export const ELECTRON_FUSES = {
  runAsNode: false,
  enableCookieEncryption: true,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  loadBrowserProcessSpecificV8Snapshot: false,
  grantFileProtocolExtraPrivileges: false,
} as const

export const config: Configuration = {
  appId: 'dev.retrace.app',
  productName: 'Retrace',
  executableName: 'retrace',
  copyright: 'Copyright © Retrace contributors',
  directories: { output: 'dist', buildResources: 'build' },
  files: [
    'out/**',
    '!out/.build-stamp',
    'package.json',
    ...rendererOnlyPackages().map((name) => `!node_modules/${name}{,/**}`),
  ],
  asar: true,
  asarUnpack: [...ASAR_UNPACK],
  // No native modules: SQLite is node:sqlite, the watcher is pure JavaScript.
  npmRebuild: false,
  // Flipping fuses breaks macOS's ad-hoc signature; an unsigned arm64 build must be re-signed ad hoc
  // or macOS refuses to start it (a signed build is signed again afterwards anyway).
  electronFuses: { ...ELECTRON_FUSES, resetAdHocDarwinSignature: true },
  fileAssociations: [...FILE_ASSOCIATIONS],
  // Nothing is published or auto-updated from a build (spec 10: no auto-update in this scope).
  publish: null,
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Development',
    icon: 'build/icons',
    synopsis: 'Work with an AI coding agent and stay in control of every file it touches',
    executableName: 'retrace',
    maintainer: 'Retrace contributors',
  },
  deb: {
    // git is optional (git-aware features are feature-detected), so it is a recommendation.
    recommends: ['git'],
  },
  mac: {
    target: [{ target: 'dmg', arch: ['x64', 'arm64'] }],
    category: 'public.app-category.developer-tools',
    icon: 'build/icon.icns',
    hardenedRuntime: true,
  },
  win: {
    target: [{ target: 'nsis', arch: ['x64'] }],
    icon: 'build/icon.ico',
  },
  nsis: {
    oneClick: false,
    // electron-builder registers file associations on Windows only for per-machine installs.
    perMachine: true,
    allowToChangeInstallationDirectory: true,
  },
}

export default config
