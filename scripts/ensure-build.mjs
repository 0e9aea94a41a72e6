// Builds main, preload and renderer when `out/` is missing or older than its inputs, so a newcomer
// can run `npm run web -- <folder>` with no separate build step.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')
const STAMP = join(repoRoot, 'out', '.build-stamp')
const INPUTS = [
  'src',
  'electron.vite.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'scripts/pdfjs-assets.ts',
]

function newestMtime(path) {
  if (!existsSync(path)) return 0
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

export function buildIsStale() {
  if (!existsSync(STAMP)) return true
  const built = statSync(STAMP).mtimeMs
  return INPUTS.some((input) => newestMtime(join(repoRoot, input)) > built)
}

export function ensureBuilt({ quiet = false, force = false } = {}) {
  if (!force && !buildIsStale()) return
  if (!quiet) process.stderr.write('Building Retrace (main, preload, renderer)…\n')
  const started = Date.now()
  const bin = join(repoRoot, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js')
  const result = spawnSync(process.execPath, [bin, 'build'], {
    cwd: repoRoot,
    stdio: quiet ? ['ignore', 'ignore', 'inherit'] : ['ignore', 'inherit', 'inherit'],
  })
  if (result.status !== 0) throw new Error(`electron-vite build failed (exit ${result.status})`)
  writeFileSync(STAMP, new Date(started).toISOString())
  // Inputs saved while the build ran are newer than the stamp, so the next run rebuilds.
  utimesSync(STAMP, started / 1000, started / 1000)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureBuilt({ force: process.argv.includes('--force') })
