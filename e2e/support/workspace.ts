import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import type { FakeLlmServer } from '../../test/support/fake-llm'
import { launchChromium } from './browser'
import { commitAll, startAgentHost } from './project'
import { startWebHost, type RunningWebHost } from './web-host'

export interface WorkspaceOptions {
  /** Names the temp folder (`retrace-e2e-<name>-…`), so a leftover says which spec made it. */
  readonly name: string
  /** Root-relative path → content, or a function that fills the project folder itself. */
  readonly files?: Readonly<Record<string, string | Buffer>> | ((project: string) => void)
  /** Commits the files into a fresh git repository before the host starts. */
  readonly git?: boolean
  /** Starts the host with a loopback fake model (`llm`) and this permission mode. */
  readonly agent?: { readonly mode: 'ask' | 'auto' }
  /** More `npm run web` arguments and environment, as a person would pass them. */
  readonly hostArgs?: readonly string[]
  readonly hostEnv?: Readonly<Record<string, string>>
  /** Every page `newPage()` opens gets it; 1400×900 unless a spec needs another window. */
  readonly viewport?: { readonly width: number; readonly height: number }
}

export interface Workspace {
  /** The temp folder holding `project/` and `data/`; removed by `stop()`. */
  readonly work: string
  readonly project: string
  readonly dataDir: string
  readonly host: RunningWebHost
  /** The fake model; only with `agent`. */
  readonly llm: FakeLlmServer
  readonly browser: Browser
  /** A page in English at the workspace's viewport (options override), not yet navigated. */
  newPage(options?: BrowserContextOptions): Promise<Page>
  stop(): Promise<void>
}

interface Running {
  work: string
  host?: RunningWebHost
  llm?: FakeLlmServer
  stopHost?: () => Promise<unknown>
  browser?: Browser
}

/**
 * The one e2e workspace: a temp project, browser mode serving it (with a fake model when asked)
 * and Chromium, started in `beforeAll` and stopped in `afterAll` of the calling spec. The returned
 * object is usable inside tests and hooks registered after this call; reading it earlier throws,
 * because nothing is running yet.
 */
export function useWorkspace(options: WorkspaceOptions): Workspace {
  let running: Running | undefined
  const ready = (): Running => {
    if (!running) throw new Error('useWorkspace: the workspace starts in beforeAll; read it inside a test or hook')
    return running
  }
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useWorkspace(${options.name}): no ${what} (see its options)`)
    return value
  }
  const stop = async (): Promise<void> => {
    const current = running
    if (!current) return
    await current.browser?.close()
    await current.stopHost?.()
    rmSync(current.work, { recursive: true, force: true })
    running = undefined
  }

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), `retrace-e2e-${options.name}-`))
    running = { work }
    const project = join(work, 'project')
    mkdirSync(project)
    if (typeof options.files === 'function') options.files(project)
    else {
      for (const [path, content] of Object.entries(options.files ?? {})) {
        mkdirSync(dirname(join(project, path)), { recursive: true })
        writeFileSync(join(project, path), content)
      }
    }
    if (options.git) commitAll(project)
    const dataDir = join(work, 'data')
    if (options.agent) {
      const agent = await startAgentHost(project, dataDir, options.agent.mode, options.hostArgs, options.hostEnv)
      running = { ...running, host: agent.host, llm: agent.llm, stopHost: () => agent.stop() }
    } else {
      const host = await startWebHost(project, dataDir, [...(options.hostArgs ?? [])], { ...options.hostEnv })
      running = { ...running, host, stopHost: () => host.stop() }
    }
    running.browser = await launchChromium()
  })
  afterAll(stop)

  const viewport = options.viewport ?? { width: 1400, height: 900 }
  return {
    get work() {
      return ready().work
    },
    get project() {
      return join(ready().work, 'project')
    },
    get dataDir() {
      return join(ready().work, 'data')
    },
    get host() {
      return need(ready().host, 'host')
    },
    get llm() {
      return need(ready().llm, 'fake model: pass agent')
    },
    get browser() {
      return need(ready().browser, 'browser')
    },
    newPage(pageOptions) {
      return need(ready().browser, 'browser').newPage({ viewport, locale: 'en-US', ...pageOptions })
    },
    stop,
  }
}
