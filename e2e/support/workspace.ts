import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { startFakeOpenAI, type FakeLlmServer } from '../../test/support/fake-llm'
import { launchChromium } from './browser'
import { commitAll } from './project'
import { startWebHost, type RunningWebHost } from './web-host'

/** Where specs put screenshots a person looks at after a run (kept; the temp folder is not). */
export const ARTIFACTS = join(__dirname, '..', '..', 'test-results')

/** Root-relative path → content. */
export type FolderFiles = Readonly<Record<string, string | Uint8Array>>

export interface WorkspaceFolders {
  /** The temp folder holding `project/`, `data/` and any `folders`; removed on stop. */
  readonly work: string
  readonly project: string
  readonly dataDir: string
}

/** What a `files` function may use: the folders, and Chromium (for files only a browser encodes). */
export interface WorkspaceSetup extends WorkspaceFolders {
  readonly browser: Browser
}

export interface WorkspaceOptions {
  /** Names the temp folder (`retrace-e2e-<name>-…`), so a leftover says which spec made it. */
  readonly name: string
  /** The project's files, or a function that fills the project folder itself. */
  readonly files?: FolderFiles | ((setup: WorkspaceSetup) => void | Promise<void>)
  /** Commits the files into a fresh git repository before the host starts. */
  readonly git?: boolean
  /** With `git`: written after the commit, so the host starts on a working tree with changes. */
  readonly uncommitted?: FolderFiles | ((project: string) => void)
  /** More folders beside `project/` (e.g. a second project to open), by folder name. */
  readonly folders?: Readonly<Record<string, FolderFiles>>
  /** Starts the host with a loopback fake model (`llm`) and this permission mode. */
  readonly agent?: { readonly mode: 'ask' | 'auto' }
  /** More `npm run web` arguments and environment, as a person would pass them. */
  readonly hostArgs?: readonly string[]
  readonly hostEnv?: Readonly<Record<string, string>> | ((folders: WorkspaceFolders) => Record<string, string>)
  /** Every page and context the workspace opens gets it; 1400×900 unless a spec needs another window. */
  readonly viewport?: { readonly width: number; readonly height: number }
  /** Budget for starting everything, when the files take long to make (default: the hook timeout). */
  readonly setupTimeout?: number
}

export interface Workspace extends WorkspaceFolders {
  /** The running host; after `restartHost()` the new one. */
  readonly host: RunningWebHost
  /** The fake model; only with `agent`. */
  readonly llm: FakeLlmServer
  readonly browser: Browser
  /** A page in its own context, in English at the workspace's viewport (options override), not navigated. */
  newPage(options?: BrowserContextOptions): Promise<Page>
  /** A context with the same defaults as `newPage`, for specs that open several pages in it. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>
  /** Stops the host and starts it again on the same project, data folder, arguments and model. */
  restartHost(): Promise<RunningWebHost>
  stop(): Promise<void>
}

interface Running extends WorkspaceFolders {
  browser?: Browser
  llm?: FakeLlmServer
  host?: RunningWebHost
  /** Set once stop() began: a setup still in flight (a timed-out hook) disposes what it starts. */
  stopping: boolean
}

/** The permission mode and provider a person passes to use a model (`--provider … --permission-mode …`). */
function agentArgs(llm: FakeLlmServer, mode: 'ask' | 'auto'): string[] {
  return ['--provider', 'openai-compatible', '--base-url', llm.url, '--model', 'fake-model', '--permission-mode', mode]
}

function writeFiles(root: string, files: FolderFiles): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

/**
 * The one e2e workspace: a temp project, browser mode serving it (with a fake model when asked)
 * and Chromium, started in `beforeAll` and stopped in `afterAll` of the calling spec — also when
 * a test or the setup itself fails. The returned object is usable inside tests and hooks
 * registered after this call; reading it earlier throws, because nothing is running yet.
 */
export function useWorkspace(options: WorkspaceOptions): Workspace {
  if (options.uncommitted && !options.git) throw new Error(`useWorkspace(${options.name}): uncommitted needs git`)
  let running: Running | undefined
  const ready = (): Running => {
    if (!running) throw new Error('useWorkspace: the workspace starts in beforeAll; read it inside a test or hook')
    return running
  }
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useWorkspace(${options.name}): no ${what} (see its options)`)
    return value
  }
  const viewport = options.viewport ?? { width: 1400, height: 900 }
  const contextOptions = (overrides?: BrowserContextOptions): BrowserContextOptions => ({
    viewport,
    locale: 'en-US',
    ...overrides,
  })

  const startHost = (current: Running): Promise<RunningWebHost> => {
    const env = typeof options.hostEnv === 'function' ? options.hostEnv(current) : options.hostEnv
    const llm = current.llm
    return startWebHost(
      current.project,
      current.dataDir,
      [...(llm && options.agent ? agentArgs(llm, options.agent.mode) : []), ...(options.hostArgs ?? [])],
      llm ? { RETRACE_API_KEY: 'e2e-key', RETRACE_MAX_RETRIES: '0', ...env } : { ...env },
    )
  }

  /**
   * Every part is released even when another fails to (a browser that will not close must not
   * leave the host running); the failures are reported once all were tried.
   */
  const stop = async (): Promise<void> => {
    const current = running
    if (!current) return
    current.stopping = true
    running = undefined
    const failures: unknown[] = []
    const attempt = async (release: () => unknown) => {
      try {
        await release()
      } catch (error) {
        failures.push(error)
      }
    }
    await attempt(() => current.browser?.close())
    await attempt(() => current.host?.stop())
    await attempt(() => current.llm?.close())
    await attempt(() => rmSync(current.work, { recursive: true, force: true }))
    if (failures.length > 0) throw new AggregateError(failures, `useWorkspace(${options.name}): teardown failed`)
  }

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), `retrace-e2e-${options.name}-`))
    const current: Running = { work, project: join(work, 'project'), dataDir: join(work, 'data'), stopping: false }
    running = current
    /**
     * Starts one part unless the workspace was stopped meanwhile (a setup hook that timed out goes
     * on running after `afterAll`): then nothing more starts, and a part that was starting is
     * released at once rather than outliving the spec.
     */
    const start = async <T>(begin: () => Promise<T>, release: (part: T) => Promise<unknown>): Promise<T> => {
      const stopped = () => new Error(`useWorkspace(${options.name}): stopped while starting`)
      if (current.stopping) throw stopped()
      const part = await begin()
      if (!current.stopping) return part
      await release(part)
      throw stopped()
    }
    mkdirSync(current.project)
    mkdirSync(ARTIFACTS, { recursive: true })
    for (const [name, files] of Object.entries(options.folders ?? {})) {
      mkdirSync(join(work, name))
      writeFiles(join(work, name), files)
    }
    // Chromium first: some files are made by the browser under test (no encoder for them in Node).
    const browser = await start(launchChromium, (part) => part.close())
    current.browser = browser
    if (typeof options.files === 'function') {
      await options.files({ work, project: current.project, dataDir: current.dataDir, browser })
    } else writeFiles(current.project, options.files ?? {})
    if (options.git) commitAll(current.project)
    if (typeof options.uncommitted === 'function') options.uncommitted(current.project)
    else if (options.uncommitted) writeFiles(current.project, options.uncommitted)
    if (options.agent) {
      current.llm = await start(
        () => startFakeOpenAI([], { requireKey: 'e2e-key', models: ['fake-model'] }),
        (part) => part.close(),
      )
    }
    current.host = await start(
      () => startHost(current),
      (part) => part.stop(),
    )
  }, options.setupTimeout)
  afterAll(stop)

  return {
    get work() {
      return ready().work
    },
    get project() {
      return ready().project
    },
    get dataDir() {
      return ready().dataDir
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
      return need(ready().browser, 'browser').newPage(contextOptions(pageOptions))
    },
    newContext(pageOptions) {
      return need(ready().browser, 'browser').newContext(contextOptions(pageOptions))
    },
    async restartHost() {
      const current = ready()
      await need(current.host, 'host').stop()
      current.host = undefined
      current.host = await startHost(current)
      return current.host
    },
    stop,
  }
}
