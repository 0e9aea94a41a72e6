import type { GitFileState } from '../../../../shared/protocol'
import type { RequestClient } from '../../transport'
import type { ScopeSlot } from '../../ui/project-scope'
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
  /** Aborted when the project's scope goes: no re-read is pending or starts after that. */
  private readonly lifetime = new AbortController()

  constructor(
    private readonly client: RequestClient,
    private readonly projectId: string,
  ) {}

  refreshSoon(delayMs = 300): void {
    if (this.lifetime.signal.aborted) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.refresh(), delayMs)
  }

  async refresh(): Promise<void> {
    const mine = ++this.generation
    const outcome = await this.client.request(
      'git.status',
      {},
      { owner: { project_id: this.projectId }, signal: this.lifetime.signal },
    )
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

  /** Cancels the pending re-read and forgets the one in flight; later `refreshSoon` calls do nothing. */
  dispose(): void {
    this.lifetime.abort()
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}

/** A project's git colours, in that project's scope: closing the project disposes them. */
export const gitStoreSlot: ScopeSlot<GitStore> = {
  name: 'explorer.git',
  create: ({ client, projectId }) => new GitStore(client, projectId),
  dispose: (git) => git.dispose(),
}
