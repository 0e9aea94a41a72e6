import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

export interface WebCliOptions {
  readonly folder: string
  readonly port: number
  readonly dataDir: string
}

export type WebCliParse = { kind: 'ok'; options: WebCliOptions } | { kind: 'usage'; message: string }

export const WEB_USAGE = 'Usage: npm run web -- <folder> [--port N] [--data-dir D]'

/** Default data directory (spec 01): `--data-dir`, else RETRACE_DATA_DIR, else XDG data home. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  if (env.RETRACE_DATA_DIR) return resolve(env.RETRACE_DATA_DIR)
  const xdg = env.XDG_DATA_HOME && env.XDG_DATA_HOME.length > 0 ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share')
  return join(xdg, 'retrace')
}

export function parseWebCli(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): WebCliParse {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { port: { type: 'string' }, 'data-dir': { type: 'string' } },
    })
  } catch (error) {
    return { kind: 'usage', message: `${(error as Error).message}\n${WEB_USAGE}` }
  }
  const [folder, ...extra] = parsed.positionals
  if (folder === undefined || extra.length > 0) return { kind: 'usage', message: WEB_USAGE }
  const portText = parsed.values.port ?? '0'
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port > 65535) {
    return { kind: 'usage', message: `--port must be a number from 0 to 65535, not "${portText}".\n${WEB_USAGE}` }
  }
  const dataDirFlag = parsed.values['data-dir']
  return {
    kind: 'ok',
    options: {
      folder: resolve(cwd, folder),
      port,
      dataDir: dataDirFlag !== undefined ? resolve(cwd, dataDirFlag) : defaultDataDir(env),
    },
  }
}
