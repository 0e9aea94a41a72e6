import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FuseV1Options, flipFuses, getCurrentFuseWire } from '@electron/fuses'
import { build, LinuxPackager, Platform } from 'electron-builder'
import { describe, expect, test } from 'vitest'
import {
  ASAR_UNPACK,
  config,
  ELECTRON_FUSES,
  FILE_ASSOCIATIONS,
  MAIN_PROCESS_PACKAGES,
  rendererOnlyPackages,
} from '../build/electron-builder.config'
import { tempDir } from './support/temp'

/**
 * `npm run dist` cannot download Electron here, so the packaging contract is checked around that
 * download: the config itself, electron-builder's own fuse translation flipped into a stand-in
 * binary that carries Electron's fuse wire, and a real `--dir` package built by electron-builder
 * from a stand-in Electron distribution (everything but the Electron binary is the real thing).
 */
const ROOT = join(__dirname, '..')
const OUT = join(ROOT, 'out')
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'

/** A fuse's state byte in the wire ('0' / '1'). */
const FuseState = { DISABLE: 0x30, ENABLE: 0x31 } as const

/** Electron 45's defaults on the first eight fuses, as the binary ships them. */
const ELECTRON_DEFAULT_WIRE = '10110001'

function standInElectronBinary(path: string): void {
  const padding = Buffer.alloc(4096, 0x2e)
  writeFileSync(
    path,
    Buffer.concat([
      padding,
      Buffer.from(SENTINEL),
      Buffer.from([1, ELECTRON_DEFAULT_WIRE.length]),
      Buffer.from(ELECTRON_DEFAULT_WIRE),
      padding,
    ]),
  )
  chmodSync(path, 0o755)
}

function fuseWireOf(path: string): string {
  const bytes = readFileSync(path)
  const at = bytes.indexOf(SENTINEL) + SENTINEL.length
  return bytes.subarray(at + 2, at + 2 + (bytes[at + 1] ?? 0)).toString('latin1')
}

/** The file list of an asar archive (its JSON header, read directly). */
function asarFiles(archive: string): string[] {
  const bytes = readFileSync(archive)
  const headerLength = bytes.readUInt32LE(12)
  const header = JSON.parse(bytes.subarray(16, 16 + headerLength).toString('utf8')) as AsarNode
  const files: string[] = []
  const walk = (node: AsarNode, prefix: string) => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      if (child.files) walk(child, `${prefix}${name}/`)
      else files.push(`${prefix}${name}`)
    }
  }
  walk(header, '')
  return files
}
interface AsarNode {
  files?: Record<string, AsarNode>
}

function pngSize(path: string): [number, number] {
  const bytes = readFileSync(path)
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)]
}

describe('electron-builder config', () => {
  test('names the app and builds AppImage + deb, dmg for x64 and arm64, and nsis', () => {
    expect(config.appId).toBe('dev.retrace.app')
    expect(config.productName).toBe('Retrace')
    expect(config.linux?.target).toEqual(['AppImage', 'deb'])
    expect(config.mac?.target).toEqual([{ target: 'dmg', arch: ['x64', 'arm64'] }])
    expect(config.win?.target).toEqual([{ target: 'nsis', arch: ['x64'] }])
    expect(config.asar).toBe(true)
    expect(config.publish).toBeNull()
  })

  test('electron-builder is pinned exactly, next to the exact Electron it packages', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>
      scripts: Record<string, string>
    }
    expect(manifest.devDependencies['electron-builder']).toMatch(/^\d+\.\d+\.\d+$/)
    expect(manifest.devDependencies.electron).toMatch(/^\d+\.\d+\.\d+$/)
    expect(manifest.scripts.dist).toBe('node scripts/dist.mjs')
  })

  test('sets every fuse of spec 11, and electron-builder translates them into a complete wire', async () => {
    expect(ELECTRON_FUSES).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    })
    expect(config.electronFuses).toEqual({ ...ELECTRON_FUSES, resetAdHocDarwinSignature: true })
    // The same translation electron-builder runs before signing (its own code, not a copy).
    const fuseConfig = await (
      LinuxPackager.prototype as unknown as {
        generateFuseConfig(fuses: unknown): Promise<Record<string, unknown>>
      }
    ).generateFuseConfig(config.electronFuses)
    const binary = join(tempDir(), 'electron')
    standInElectronBinary(binary)
    // strictlyRequireAllFuses: no fuse may be left to Electron's default.
    await flipFuses(binary, { ...fuseConfig, strictlyRequireAllFuses: true } as unknown as Parameters<
      typeof flipFuses
    >[1])
    const wire = (await getCurrentFuseWire(binary)) as unknown as Record<number, number>
    const state = (option: FuseV1Options) => wire[option]
    expect(state(FuseV1Options.RunAsNode)).toBe(FuseState.DISABLE)
    expect(state(FuseV1Options.EnableCookieEncryption)).toBe(FuseState.ENABLE)
    expect(state(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe(FuseState.DISABLE)
    expect(state(FuseV1Options.EnableNodeCliInspectArguments)).toBe(FuseState.DISABLE)
    expect(state(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe(FuseState.ENABLE)
    expect(state(FuseV1Options.OnlyLoadAppFromAsar)).toBe(FuseState.ENABLE)
    expect(state(FuseV1Options.LoadBrowserProcessSpecificV8Snapshot)).toBe(FuseState.DISABLE)
    expect(state(FuseV1Options.GrantFileProtocolExtraPrivileges)).toBe(FuseState.DISABLE)
  })

  test('file associations cover the types the adapters open, each extension once, with a MIME type', () => {
    const extensions = FILE_ASSOCIATIONS.flatMap((a) => (Array.isArray(a.ext) ? a.ext : [a.ext]))
    expect(new Set(extensions).size).toBe(extensions.length)
    // Every family Retrace opens (issue 25): text, PDF, images incl. PSD/TIFF, Office (OOXML, ODF,
    // legacy binary), audio and video.
    for (const ext of [
      ...['pdf', 'md', 'txt', 'csv', 'json', 'png', 'jpg', 'gif', 'webp', 'bmp', 'svg', 'ico', 'avif'],
      ...['psd', 'tif', 'tiff', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'doc', 'xls', 'ppt', 'rtf'],
      ...['mp3', 'wav', 'ogg', 'flac', 'm4a', 'mp4', 'webm'],
    ])
      expect(extensions).toContain(ext)
    for (const association of FILE_ASSOCIATIONS) {
      expect(association.mimeType).toMatch(/^[a-z]+\/[\w.+-]+$/)
      // Installing Retrace never takes a type over on macOS.
      expect(association.rank).toBe('Alternate')
    }
    expect(config.fileAssociations).toEqual(FILE_ASSOCIATIONS)
    // electron-builder registers associations on Windows only for per-machine installs.
    expect(config.nsis?.perMachine).toBe(true)
  })

  test('the packaged app ships exactly the packages the main process loads', () => {
    const bundles = [
      ...readdirSync(join(OUT, 'main'))
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(OUT, 'main', f)),
      ...readdirSync(join(OUT, 'main', 'chunks')).map((f) => join(OUT, 'main', 'chunks', f)),
    ]
    const required = new Set<string>()
    for (const file of bundles) {
      // `require("x")`, and `import("x")` for the ES modules the documents worker loads on demand (pdf.js).
      for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(/(?:require|import)\("([^".][^"]*)"\)/g)) {
        if (specifier.startsWith('node:') || specifier === 'electron') continue
        required.add(
          specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : (specifier.split('/')[0] ?? specifier),
        )
      }
    }
    // A new main-process dependency must be listed, or the packaged app would fail to load it.
    expect([...required].sort()).toEqual([...MAIN_PROCESS_PACKAGES].sort())
    const excluded = rendererOnlyPackages()
    for (const name of ['monaco-editor', 'react', 'react-dom']) expect(excluded).toContain(name)
    for (const name of MAIN_PROCESS_PACKAGES) expect(excluded).not.toContain(name)
  })
})

describe('icons', () => {
  test('every size is generated from assets/icon.svg as it is now (npm run icons)', () => {
    const digest = createHash('sha256')
      .update(readFileSync(join(ROOT, 'assets', 'icon.svg')))
      .digest('hex')
    expect(readFileSync(join(ROOT, 'build', 'icons', 'source.sha256'), 'utf8').split(' ')[0]).toBe(digest)
    for (const size of [16, 24, 32, 48, 64, 128, 256, 512, 1024]) {
      expect(pngSize(join(ROOT, 'build', 'icons', `${size}x${size}.png`))).toEqual([size, size])
    }
    const ico = readFileSync(join(ROOT, 'build', 'icon.ico'))
    expect(ico.readUInt16LE(2)).toBe(1) // an icon resource
    const icoSizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + i * 16] || 256)
    expect(icoSizes.sort((a, b) => a - b)).toEqual([16, 24, 32, 48, 64, 128, 256])
    const icns = readFileSync(join(ROOT, 'build', 'icon.icns'))
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns')
    // ic10 is the 1024 px (512@2x) image macOS uses for Retina docks.
    expect(icns.includes(Buffer.from('ic10'))).toBe(true)
    expect(config.linux?.icon).toBe('build/icons')
    expect(existsSync(join(ROOT, String(config.mac?.icon)))).toBe(true)
    expect(existsSync(join(ROOT, String(config.win?.icon)))).toBe(true)
  })
})

describe('a package built by electron-builder (stand-in Electron binary, no download)', () => {
  test('app.asar holds the built app and only main-process packages; fuses are flipped; only ripgrep is unpacked', async () => {
    const work = tempDir()
    const electronDist = join(work, 'electron-dist')
    mkdirSync(electronDist)
    standInElectronBinary(join(electronDist, 'electron'))
    writeFileSync(join(electronDist, 'LICENSE'), 'stand-in')
    await build({
      projectDir: ROOT,
      config: { ...config, electronDist, directories: { ...config.directories, output: join(work, 'dist') } },
      targets: Platform.LINUX.createTarget('dir'),
      publish: 'never',
    })
    const app = join(work, 'dist', 'linux-unpacked')
    expect(fuseWireOf(join(app, 'retrace'))).toBe('01001100')
    const resources = readdirSync(join(app, 'resources'))
    expect(resources.sort()).toEqual(['app.asar', 'app.asar.unpacked'])
    expect(ASAR_UNPACK).toEqual(['node_modules/@vscode/ripgrep-*/bin/*'])
    // Content search's rg, outside the archive and executable, where bundledRipgrep() looks.
    const rg = join(
      app,
      'resources',
      'app.asar.unpacked',
      'node_modules',
      `@vscode/ripgrep-linux-${process.arch}`,
      'bin',
      'rg',
    )
    expect(statSync(rg).mode & 0o111).not.toBe(0)
    const files = asarFiles(join(app, 'resources', 'app.asar'))
    for (const file of ['package.json', 'out/main/electron.js', 'out/main/diff-worker.js', 'out/preload/index.cjs']) {
      expect(files).toContain(file)
    }
    expect(files).toContain('out/renderer/index.html')
    // The staged pdf.js (module, viewer, worker, cMaps, fonts) is served from the archive over
    // app:// like every renderer file.
    for (const file of ['pdf.min.mjs', 'pdf.worker.min.mjs', 'pdf_viewer.mjs', 'manifest.json']) {
      expect(files).toContain(`out/renderer/document-assets/pdfjs/${file}`)
    }
    expect(files).not.toContain('out/.build-stamp')
    const packages = new Set(files.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/')[1]))
    // pdf.js ships twice on purpose: staged for the renderer, and as a package for the engine's documents worker.
    for (const name of ['ai', 'zod', 'ws', 'chokidar', 'diff', 'pdfjs-dist', 'fast-formula-parser']) {
      expect(packages).toContain(name)
    }
    for (const name of ['monaco-editor', 'react', 'react-dom', '@napi-rs', 'electron']) {
      expect(packages).not.toContain(name)
    }
  }, 300_000)
})

describe('npm run dist without the download host', () => {
  test('a failed download of Electron or a packaging tool ends in one sentence; other failures stay errors', async () => {
    const { downloadFailureSentence, isDownloadFailure } = await import('../scripts/dist.mjs')
    expect(isDownloadFailure(new Error('getaddrinfo ENOTFOUND example.invalid'))).toBe(true)
    expect(isDownloadFailure(new Error('dial tcp: lookup example.invalid: no such host'))).toBe(true)
    expect(isDownloadFailure(new Error('connect ECONNREFUSED 127.0.0.1:443'))).toBe(true)
    expect(isDownloadFailure(new Error('Cannot find module out/main/electron.js'))).toBe(false)
    const sentence = downloadFailureSentence('linux', 'x64')
    expect(sentence).toMatch(/^npm run dist stopped: .* linux-x64 .*\.$/)
    expect(sentence.split(/(?<=\.)\s/)).toHaveLength(1)
  })
})
