import { execFile } from 'node:child_process'
import { access, constants, realpath } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'

/**
 * Finding LibreOffice: `soffice` on PATH or in the usual install locations, its version, and a
 * Python that can `import uno` (LibreOffice's own on Windows/macOS, python3-uno on Linux) for the
 * resident listener. Without such a Python, conversions still work one call at a time.
 */

export interface LibreOfficeInstall {
  readonly soffice: string
  readonly version: string
  /** A Python with the `uno` module, or null (then only one-shot conversion is possible). */
  readonly python: string | null
}

export type Detection = { kind: 'found'; install: LibreOfficeInstall } | { kind: 'missing'; reason: string }

const USUAL_LOCATIONS: Record<string, string[]> = {
  linux: [
    '/usr/bin/soffice',
    '/usr/lib/libreoffice/program/soffice',
    '/opt/libreoffice/program/soffice',
    '/snap/bin/libreoffice',
  ],
  darwin: ['/Applications/LibreOffice.app/Contents/MacOS/soffice'],
  win32: [
    'C:\\Program Files\\LibreOffice\\program\\soffice.exe',
    'C:\\Program Files (x86)\\LibreOffice\\program\\soffice.exe',
  ],
}

export async function detectLibreOffice(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: string = process.platform,
): Promise<Detection> {
  const soffice = await findSoffice(env, platform)
  if (soffice === null) {
    return { kind: 'missing', reason: 'LibreOffice (soffice) was not found on PATH or in the usual install locations.' }
  }
  const version = await run(soffice, ['--headless', '--version'], 30_000).catch(() => null)
  if (version === null) return { kind: 'missing', reason: `${soffice} did not answer --version.` }
  const match = /LibreOffice\s+([0-9][0-9.]*)/.exec(version)
  return {
    kind: 'found',
    install: {
      soffice,
      version: match?.[1] ?? version.trim().slice(0, 40),
      python: await findUnoPython(soffice, env, platform),
    },
  }
}

async function findSoffice(
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
): Promise<string | null> {
  if (env.RETRACE_SOFFICE) return (await executable(env.RETRACE_SOFFICE)) ? env.RETRACE_SOFFICE : null
  const names = platform === 'win32' ? ['soffice.exe', 'soffice.com'] : ['soffice', 'libreoffice']
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (!folder) continue
    for (const name of names) {
      const candidate = join(folder, name)
      if (await executable(candidate)) return realpath(candidate).catch(() => candidate)
    }
  }
  // Only where PATH was not deliberately emptied: the usual install places.
  if (env.RETRACE_SOFFICE_SEARCH === 'path-only') return null
  for (const candidate of USUAL_LOCATIONS[platform] ?? []) {
    if (await executable(candidate)) return candidate
  }
  return null
}

async function findUnoPython(
  soffice: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
): Promise<string | null> {
  const program = dirname(soffice)
  const candidates = [
    env.RETRACE_UNO_PYTHON,
    join(program, platform === 'win32' ? 'python.exe' : 'python'),
    join(program, '..', 'Resources', 'python'),
    '/usr/bin/python3',
    'python3',
  ].filter((c): c is string => c !== undefined && c !== '')
  for (const candidate of candidates) {
    const works = await run(candidate, ['-c', 'import uno, unohelper'], 15_000)
      .then(() => true)
      .catch(() => false)
    if (works) return candidate
  }
  return null
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function run(command: string, args: string[], timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout, windowsHide: true }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    )
  })
}
