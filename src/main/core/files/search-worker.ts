// The project search worker (spec 01: directory walks run off the main event loop). Loaded by path:
// from the build (out/main/search-worker.js) or, under tests, from this source through tsx.
import { parentPort } from 'node:worker_threads'
import { buildIndex, refreshIndex, DEFAULT_INDEX_LIMITS, type IndexLimits, type ProjectIndex } from './search-index'
import { rankIndex, type SearchMode } from './search-rank'
import type { SearchJob, SearchReply } from './search-runner'

/** Indexes kept, least recently used dropped first (each holds a whole project's paths). */
const KEPT_INDEXES = 2
const indexes = new Map<string, ProjectIndex>()

function indexFor(root: string, dataDir: string, limits: IndexLimits): ProjectIndex {
  const key = `${root}\u0000${dataDir}`
  const known = indexes.get(key)
  const index = known ? refreshIndex(known, limits) : buildIndex(root, dataDir, limits)
  indexes.delete(key)
  indexes.set(key, index)
  while (indexes.size > KEPT_INDEXES) indexes.delete(indexes.keys().next().value as string)
  return index
}

function answer(job: SearchJob): SearchReply {
  const index = indexFor(job.root, job.dataDir, job.limits ?? DEFAULT_INDEX_LIMITS)
  if (job.kind === 'generation')
    return { id: job.id, kind: 'ok', generation: index.generation, truncated: index.truncated, paths: [], kinds: [] }
  const ranked = rankIndex(index, job.query, job.mode as SearchMode)
  return {
    id: job.id,
    kind: 'ok',
    generation: index.generation,
    truncated: index.truncated,
    paths: ranked.map((i) => index.paths[i] as string),
    kinds: ranked.map((i) => index.kinds[i] as 'file' | 'dir' | 'symlink'),
  }
}

parentPort?.on('message', (job: SearchJob) => {
  let reply: SearchReply
  try {
    reply = answer(job)
  } catch (error) {
    reply = { id: job.id, kind: 'failed', message: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(reply)
})
