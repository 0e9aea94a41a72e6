import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

export interface WebCliOptions {
  readonly folder: string
  readonly port: number
  readonly dataDir: string
  /** `--provider --base-url --model` (spec 02 "Browser-mode wire details"); the key is RETRACE_API_KEY. */
  readonly provider?: { kind: 'openai-compatible' | 'anthropic'; base_url: string; model: string }
  readonly permissionMode?: 'ask' | 'accept-edits' | 'auto'
  /** `--open <root-relative path>`: a file the window opens in a tab at start. */
  readonly open?: string
}

export type WebCliParse = { kind: 'ok'; options: WebCliOptions } | { kind: 'usage'; message: string }

export const WEB_USAGE =
  'Usage: npm run web -- <folder> [--port N] [--data-dir D] [--provider openai-compatible|anthropic --base-url URL --model NAME] [--permission-mode ask|accept-edits|auto] [--open <root-relative path>]'

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
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'permission-mode': { type: 'string' },
        open: { type: 'string' },
      },
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
  const { provider: kind, 'base-url': baseUrl, model } = parsed.values
  const mode = parsed.values['permission-mode']
  if (kind !== undefined && kind !== 'openai-compatible' && kind !== 'anthropic') {
    return { kind: 'usage', message: `--provider must be openai-compatible or anthropic, not "${kind}".\n${WEB_USAGE}` }
  }
  if (kind === undefined && (baseUrl !== undefined || model !== undefined)) {
    return { kind: 'usage', message: `--base-url and --model need --provider.\n${WEB_USAGE}` }
  }
  if (kind !== undefined && model === undefined) {
    return { kind: 'usage', message: `--provider needs --model.\n${WEB_USAGE}` }
  }
  if (mode !== undefined && mode !== 'ask' && mode !== 'accept-edits' && mode !== 'auto') {
    return {
      kind: 'usage',
      message: `--permission-mode must be ask, accept-edits or auto, not "${mode}".\n${WEB_USAGE}`,
    }
  }
  const open = parsed.values.open
  if (open !== undefined && (open === '' || open.startsWith('/') || open.split('/').includes('..'))) {
    return {
      kind: 'usage',
      message: `--open takes a path inside the folder, like src/main.ts, not "${open}".\n${WEB_USAGE}`,
    }
  }
  return {
    kind: 'ok',
    options: {
      folder: resolve(cwd, folder),
      port,
      dataDir: dataDirFlag !== undefined ? resolve(cwd, dataDirFlag) : defaultDataDir(env),
      ...(kind !== undefined && model !== undefined ? { provider: { kind, base_url: baseUrl ?? '', model } } : {}),
      ...(mode !== undefined ? { permissionMode: mode } : {}),
      ...(open !== undefined ? { open } : {}),
    },
  }
}
