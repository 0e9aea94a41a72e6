import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { IndexLimits } from './search-index'
import type { SearchMode } from './search-rank'

type JobBody = { root: string; dataDir: string } & (
  { kind: 'generation' } | { kind: 'query'; query: string; mode: SearchMode }
)

export type SearchJob = JobBody & { id: number; limits?: IndexLimits }

export type SearchReply =
  | {
      id: number
      kind: 'ok'
      generation: string
      /** Earlier generations of the very same entries (see `ProjectIndex.aliases`). */
      aliases: string[]
      truncated: boolean
      paths: string[]
      kinds: Array<'file' | 'dir' | 'symlink'>
    }
  | { id: number; kind: 'failed'; message: string }

export type SearchAnswer = Omit<Extract<SearchReply, { kind: 'ok' }>, 'id' | 'kind'>

/** The worker script: next to the bundle in a build, the TypeScript source (through tsx) under tests. */
function workerScript(): { file: string; execArgv?: string[] } {
  for (const candidate of [join(__dirname, 'search-worker.js'), join(__dirname, '..', 'search-worker.js')]) {
    if (existsSync(candidate)) return { file: candidate }
  }
  const source = join(__dirname, 'search-worker.ts')
  if (existsSync(source)) return { file: source, execArgv: ['--import', 'tsx'] }
  throw new Error('search-worker script not found')
}

export interface SearchRunner {
  /** Ranked entries for a query, from the project's index (walked or refreshed as needed). */
  query(root: string, dataDir: string, query: string, mode: SearchMode): Promise<SearchAnswer>
  /**
   * The generations of the project's entries right now, current first (a cursor is valid only while
   * its own is among them).
   */
  generations(root: string, dataDir: string): Promise<string[]>
  dispose(): void
}

/**
 * One long-lived search worker, jobs one at a time: the walk and the ranking never block the
 * engine's event loop, and the worker keeps the last projects' indexes between keystrokes.
 */
export function createSearchRunner(options: { limits?: IndexLimits } = {}): SearchRunner {
  let worker: Worker | undefined
  let nextId = 0
  let queue: Promise<unknown> = Promise.resolve()
  const start = () => {
    const script = workerScript()
    const created = new Worker(script.file, script.execArgv ? { execArgv: script.execArgv } : {})
    created.unref()
    return created
  }
  function run(job: JobBody): Promise<SearchAnswer> {
    const next = queue.then(
      () =>
        new Promise<SearchAnswer>((resolve, reject) => {
          worker ??= start()
          const current = worker
          const id = ++nextId
          const settle = (outcome: SearchReply | Error) => {
            current.off('message', onMessage)
            current.off('error', onError)
            if (outcome instanceof Error) reject(outcome)
            else if (outcome.kind === 'failed') reject(new Error(outcome.message))
            else
              resolve({
                generation: outcome.generation,
                aliases: outcome.aliases,
                truncated: outcome.truncated,
                paths: outcome.paths,
                kinds: outcome.kinds,
              })
          }
          const onMessage = (message: SearchReply) => {
            if (message.id === id) settle(message)
          }
          const onError = (error: Error) => {
            worker = undefined
            settle(error)
          }
          current.on('message', onMessage)
          current.on('error', onError)
          current.postMessage({ ...job, id, ...(options.limits ? { limits: options.limits } : {}) })
        }),
    )
    queue = next.catch(() => undefined)
    return next
  }
  return {
    query: (root, dataDir, query, mode) => run({ kind: 'query', root, dataDir, query, mode }),
    generations: async (root, dataDir) => {
      const answer = await run({ kind: 'generation', root, dataDir })
      return [answer.generation, ...answer.aliases]
    },
    dispose() {
      void worker?.terminate()
      worker = undefined
    },
  }
}
