// `npm run dist`: production build, then electron-builder for the current platform with
// build/electron-builder.config.ts (installers land in dist/). electron-builder downloads the
// Electron runtime and its packaging tools; where they cannot be fetched this stops with one
// sentence instead of a stack trace.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuilt, repoRoot } from './ensure-build.mjs'

/** Error text that means "a download failed", from @electron/get or electron-builder's tool fetcher. */
const DOWNLOAD_FAILURE =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|socket hang up|no such host|dial tcp|getaddrinfo|cannot resolve|unable to (?:download|fetch)|failed to download|status code (?:4|5)\d\d/i

export function isDownloadFailure(error) {
  const text = `${error?.message ?? ''}\n${error?.stack ?? ''}\n${error?.cause?.message ?? ''}`
  return DOWNLOAD_FAILURE.test(text)
}

export function downloadFailureSentence(platform = process.platform, arch = process.arch) {
  return (
    `npm run dist stopped: electron-builder could not download the Electron runtime or its packaging tools ` +
    `for ${platform}-${arch} (this machine cannot reach their download host); run it on a machine with ` +
    `internet access, where it writes the installers to dist/.`
  )
}

async function main() {
  ensureBuilt({ force: true })
  const { build } = await import('electron-builder')
  try {
    const written = await build({
      projectDir: repoRoot,
      config: join(repoRoot, 'build', 'electron-builder.config.ts'),
      publish: 'never',
    })
    process.stdout.write(`Installers written:\n${written.map((file) => `  ${file}`).join('\n')}\n`)
  } catch (error) {
    if (!isDownloadFailure(error)) throw error
    process.stderr.write(`${downloadFailureSentence()}\n`)
    process.exitCode = 1
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
