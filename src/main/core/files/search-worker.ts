// The project search worker (spec 01: directory walks run off the main event loop). Loaded by path:
// from the build (out/main/search-worker.js) or, under tests, from this source through tsx.
import { lstatSync } from 'node:fs'
import { parentPort } from 'node:worker_threads'
import { SEARCH_PAGE_SIZE } from '../../../shared/protocol'
import { excludeFiles, listTrackedFiles, listUntrackedFiles } from '../git'
import {
  buildIndex,
  readExcludes,
  refreshIndex,
  replaceSeed,
  seedBuilder,
  DEFAULT_INDEX_LIMITS,
  type IndexLimits,
  type ProjectIndex,
} from './search-index'
import { rankIndex, type SearchMode } from './search-rank'
import type { SearchJob, SearchReply } from './search-runner'
import { walkVerdicts } from './walk'

/** Indexes kept, least recently used dropped first (each holds a whole project's paths). */
const KEPT_INDEXES = 2
const indexes = new Map<string, ProjectIndex>()

function keep(key: string, index: ProjectIndex): ProjectIndex {
  indexes.delete(key)
  indexes.set(key, index)
  while (indexes.size > KEPT_INDEXES) indexes.delete(indexes.keys().next().value as string)
  return index
}

/** The root is the top level of a git work tree (`.git` a folder, or a gitfile in a linked worktree). */
function isWorkTreeTop(root: string): boolean {
  try {
    const info = lstatSync(`${root}/.git`)
    return info.isDirectory() || info.isFile()
  } catch {
    return false
  }
}

type Ok = Extract<SearchReply, { kind: 'ok' }>

function ranked(id: number, index: ProjectIndex, query: string, mode: SearchMode): Ok {
  const order = rankIndex(index, query, mode)
  return {
    id,
    kind: 'ok',
    generation: index.generation,
    aliases: [],
    truncated: index.truncated,
    paths: order.map((i) => index.paths[i] as string),
    kinds: order.map((i) => index.kinds[i] as 'file' | 'dir' | 'symlink'),
  }
}

/**
 * A first page ranked from git's listing, made true to the disk: each entry shown is checked as the
 * walk would list it (present, its real kind, not ignored, not below a link); entries that fail
 * are dropped and the next ones move up. Later pages are served from this answer only while the
 * walk finds exactly the same entries (the generation is a digest of them); otherwise their cursor
 * is `STALE_SNAPSHOT` and the renderer asks for page one again. The total counts the entries past
 * page one as git listed them (a deleted or ignored-though-tracked one among them is counted until
 * the next query, which the walked index answers).
 */
function verifiedFirstPage(answer: Ok, index: ProjectIndex, mode: SearchMode, outer: string | undefined): Ok {
  const paths: string[] = []
  const kinds: Array<'file' | 'dir' | 'symlink'> = []
  const shown = new Set<string>()
  let next = 0
  while (paths.length < SEARCH_PAGE_SIZE && next < answer.paths.length) {
    const batch = answer.paths.slice(next, next + SEARCH_PAGE_SIZE - paths.length)
    next += batch.length
    const verdicts = walkVerdicts(
      { root: index.root, dataDir: index.dataDir, ...(outer !== undefined ? { outerIgnore: outer } : {}) },
      batch,
    )
    batch.forEach((path, i) => {
      const kind = verdicts[i]
      if (kind === undefined || (mode === 'files' && kind !== 'file') || shown.has(path)) return
      shown.add(path)
      paths.push(path)
      kinds.push(kind)
    })
  }
  return {
    ...answer,
    paths: [...paths, ...answer.paths.slice(next)],
    kinds: [...kinds, ...answer.kinds.slice(next)],
  }
}

async function handle(job: SearchJob): Promise<void> {
  const limits: IndexLimits = job.limits ?? DEFAULT_INDEX_LIMITS
  const key = `${job.root}\u0000${job.dataDir}`
  const known = indexes.get(key)
  if (known) {
    const index = keep(key, refreshIndex(known, limits))
    post(job.kind === 'query' ? ranked(job.id, index, job.query, job.mode) : generationOnly(job.id, index))
    return
  }
  if (!isWorkTreeTop(job.root)) {
    const index = keep(key, buildIndex(job.root, job.dataDir, limits))
    post(job.kind === 'query' ? ranked(job.id, index, job.query, job.mode) : generationOnly(job.id, index))
    return
  }
  // A git work tree, not indexed yet: git lists it faster than a walk (its own C walk, the index
  // for tracked files), so the first query is answered from git's listings and the walk — which
  // alone records the folder versions that later searches check — runs right after the answer.
  const seed = job.kind === 'query' ? await seedFromGit(job.root, job.dataDir, limits) : undefined
  // Asked once git has listed (their processes would compete with it), answered while we rank.
  const excludes = excludeFiles(job.root).then((found) => (found.kind === 'ok' ? found.result : []))
  if (seed && job.kind === 'query') {
    const answer = ranked(job.id, seed, job.query, job.mode)
    const excludePaths = await excludes
    post(verifiedFirstPage(answer, seed, job.mode, readExcludes(excludePaths)))
    try {
      keep(key, replaceSeed(seed, buildIndex(job.root, job.dataDir, limits, excludePaths)))
    } catch {
      // the next job walks again
    }
    return
  }
  const index = keep(key, buildIndex(job.root, job.dataDir, limits, await excludes))
  post(job.kind === 'query' ? ranked(job.id, index, job.query, job.mode) : generationOnly(job.id, index))
}

/**
 * Both listings started together; the tracked one (read from git's index) is parsed while git
 * still walks the folders for the untracked one. `undefined` when git cannot list the tree or it
 * is larger than the index may be.
 */
async function seedFromGit(root: string, dataDir: string, limits: IndexLimits): Promise<ProjectIndex | undefined> {
  const untracked = listUntrackedFiles(root)
  const tracked = await listTrackedFiles(root)
  const builder = seedBuilder(root, dataDir, limits)
  const fits = tracked.kind === 'ok' && builder.add(tracked.result)
  const others = await untracked
  if (!fits || others.kind !== 'ok' || !builder.add(others.result)) return undefined
  return builder.finish()
}

function generationOnly(id: number, index: ProjectIndex): Ok {
  return {
    id,
    kind: 'ok',
    generation: index.generation,
    aliases: [...index.aliases],
    truncated: index.truncated,
    paths: [],
    kinds: [],
  }
}

function post(reply: SearchReply): void {
  parentPort?.postMessage(reply)
}

// Jobs one at a time, the walk after a git-seeded answer included: the next job sees its index.
let pending: Promise<void> = Promise.resolve()
parentPort?.on('message', (job: SearchJob) => {
  pending = pending.then(() =>
    handle(job).catch((error: unknown) =>
      post({ id: job.id, kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    ),
  )
})
