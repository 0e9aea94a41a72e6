import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * A fresh LibreOffice user profile per engine start: the user's own profile (macros, extensions,
 * recent files) is never used, and these settings hold before the first document loads — macros
 * never run, linked content and the update check never reach the network, no first-start wizard.
 */
const SETTINGS: Array<[path: string, name: string, type: string, value: string]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 'int', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'boolean', 'true'],
  ['/org.openoffice.Office.Common/Misc', 'FirstRun', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'ShowTipOfTheDay', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'CollectUsageInformation', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseOpenCL', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', 'boolean', 'false'],
  ['/org.openoffice.Office.Common/Load', 'UpdateDocMode', 'int', '0'],
  ['/org.openoffice.Office.Calc/Formula/Load', 'OOXMLRecalcMode', 'int', '0'],
  ['/org.openoffice.Office.Calc/Formula/Load', 'ODFRecalcMode', 'int', '0'],
  [
    "/org.openoffice.Office.Jobs/Jobs/org.openoffice.Office.Jobs:Job['UpdateCheck']/Arguments",
    'AutoCheckEnabled',
    'boolean',
    'false',
  ],
  ['/org.openoffice.Office.Recovery/AutoSave', 'Enabled', 'boolean', 'false'],
  ['/org.openoffice.Office.Recovery/RecoveryInfo', 'Enabled', 'boolean', 'false'],
]

export interface Profile {
  readonly dir: string
  /** The `-env:UserInstallation=` argument. */
  readonly argument: string
  /**
   * The environment with TMPDIR inside the profile, so what LibreOffice writes there goes with it.
   * (Its IPC pipes go to /tmp regardless: a clean quit removes them, see `resident.ts`.)
   */
  environment(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv
  dispose(): Promise<void>
}

/**
 * Profiles live in the system temp folder: a listener asked to quit keeps writing its profile for
 * a moment after Retrace let go of it, which must not race the removal of Retrace's data folder.
 */
export const PROFILE_PARENT = tmpdir()
const PROFILE_PREFIX = 'retrace-lo-'

/**
 * Profiles left by a process that ended before it could remove them. Only old ones: another
 * Retrace process may be using a recent one.
 */
export async function removeStaleProfiles(parent = PROFILE_PARENT, olderThanMs = 24 * 60 * 60 * 1000): Promise<void> {
  const now = Date.now()
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith(PROFILE_PREFIX)) continue
    const info = await stat(join(parent, name)).catch(() => undefined)
    if (info && now - info.mtimeMs > olderThanMs) await rm(join(parent, name), { recursive: true, force: true })
  }
}

export async function createProfile(parent = PROFILE_PARENT): Promise<Profile> {
  await mkdir(parent, { recursive: true, mode: 0o700 })
  const dir = await mkdtemp(join(parent, PROFILE_PREFIX))
  await mkdir(join(dir, 'user'), { recursive: true, mode: 0o700 })
  const items = SETTINGS.map(
    ([path, name, type, value]) =>
      `<item oor:path="${escape(path)}"><prop oor:name="${name}" oor:op="fuse" oor:type="xs:${type}"><value>${escape(value)}</value></prop></item>`,
  ).join('\n')
  await writeFile(
    join(dir, 'user', 'registrymodifications.xcu'),
    `<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n${items}\n</oor:items>\n`,
    { mode: 0o600 },
  )
  const temp = join(dir, 'tmp')
  await mkdir(temp, { mode: 0o700 })
  return {
    dir,
    argument: `-env:UserInstallation=${pathToFileURL(dir).href}`,
    environment: (base) => ({ ...base, TMPDIR: temp, TMP: temp, TEMP: temp }),
    dispose: () => rm(dir, { recursive: true, force: true, maxRetries: 3 }),
  }
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** Environment for every LibreOffice process: no proxies to reach, no display to open. */
export function sofficeEnvironment(base: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const key of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'SYSTEMROOT', 'TEMP', 'TMP', 'USERPROFILE']) {
    if (base[key] !== undefined) env[key] = base[key]
  }
  env.SAL_USE_VCLPLUGIN = 'svp'
  env.SAL_DISABLE_JAVA = '1'
  return env
}

/** Every LibreOffice process runs without a window, a splash, restore or a default document. */
export const HEADLESS_ARGUMENTS = [
  '--headless',
  '--invisible',
  '--norestore',
  '--nologo',
  '--nodefault',
  '--nolockcheck',
]
