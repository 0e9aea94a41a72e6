import type { GitFileState } from '../../../../shared/protocol'
import type { RequestClient } from '../../transport'
import { createStore, type Store } from '../../ui/store'

export interface GitDecorations {
  readonly files: ReadonlyMap<string, GitFileState>
  /** Folders that contain a changed file (shown with a dot). */
  readonly folders: ReadonlySet<string>
}

const NONE: GitDecorations = { files: new Map(), folders: new Set() }

/**
 * `git status` colours for one project, re-read (debounced) after files change. Not a git
 * repository: no decorations.
 */
export class GitStore {
  readonly store: Store<GitDecorations> = createStore(NONE)
  private timer: ReturnType<typeof setTimeout> | undefined
  private generation = 0

  constructor(
    private readonly client: RequestClient,
    private readonly projectId: string,
  ) {}

  refreshSoon(delayMs = 300): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.refresh(), delayMs)
  }

  async refresh(): Promise<void> {
    const mine = ++this.generation
    const outcome = await this.client.request('git.status', {}, { owner: { project_id: this.projectId } })
    if (mine !== this.generation || outcome.kind !== 'ok') return
    if (outcome.result.kind !== 'ok') {
      this.store.set(NONE)
      return
    }
    const files = new Map<string, GitFileState>()
    const folders = new Set<string>()
    for (const entry of outcome.result.entries) {
      files.set(entry.path, entry.state)
      const segments = entry.path.split('/')
      for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join('/'))
    }
    this.store.set({ files, folders })
  }
}

const stores = new Map<string, GitStore>()

export function gitStoreFor(client: RequestClient, projectId: string): GitStore {
  let store = stores.get(projectId)
  if (!store) {
    store = new GitStore(client, projectId)
    stores.set(projectId, store)
  }
  return store
}
