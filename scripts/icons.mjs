// `npm run icons`: renders every packaged icon from the one source image, assets/icon.svg —
// build/icons/<N>x<N>.png (Linux, and the sizes electron-builder reads), build/icon.icns (macOS),
// build/icon.ico (Windows). The outputs are committed; build/icons/source.sha256 records the source
// they came from, and test/packaging.test.ts fails when the source changed without a re-run.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import iconGen from 'icon-gen'

const repoRoot = join(fileURLToPath(new URL('.', import.meta.url)), '..')
export const ICON_SOURCE = join(repoRoot, 'assets', 'icon.svg')
export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024]

export function sourceDigest() {
  return createHash('sha256').update(readFileSync(ICON_SOURCE)).digest('hex')
}

export async function generateIcons(buildDir = join(repoRoot, 'build')) {
  const staging = mkdtempSync(join(tmpdir(), 'retrace-icons-'))
  try {
    await iconGen(ICON_SOURCE, staging, {
      report: false,
      ico: { name: 'icon', sizes: [16, 24, 32, 48, 64, 128, 256] },
      icns: { name: 'icon', sizes: [16, 32, 64, 128, 256, 512, 1024] },
      favicon: { name: 'png-', pngSizes: LINUX_SIZES, icoSizes: [] },
    })
    const iconsDir = join(buildDir, 'icons')
    rmSync(iconsDir, { recursive: true, force: true })
    mkdirSync(iconsDir, { recursive: true })
    for (const size of LINUX_SIZES) renameSync(join(staging, `png-${size}.png`), join(iconsDir, `${size}x${size}.png`))
    renameSync(join(staging, 'icon.icns'), join(buildDir, 'icon.icns'))
    renameSync(join(staging, 'icon.ico'), join(buildDir, 'icon.ico'))
    writeFileSync(join(iconsDir, 'source.sha256'), `${sourceDigest()}  assets/icon.svg\n`)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await generateIcons()
  process.stdout.write('Icons written to build/icons/, build/icon.icns and build/icon.ico.\n')
}
