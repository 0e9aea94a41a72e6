import { mkdirSync, rmdirSync } from 'node:fs'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { unreachablePath } from './io-failure'
import { statLeaf, syncDir } from './leaf'
import {
  PINNING_MODE,
  closeDir,
  openChain,
  openChild,
  sameIdentity,
  verifyChain,
  type DirIdentity,
  type OpenDir,
} from './pinned-dir'

/**
 * Where a file is, as planned: its parent folders and the identity each existing one had when the
 * plan read the disk. Every later step re-opens the same folders and checks they are still those.
 */
export interface Place {
  /** Root-relative path, for messages. */
  readonly path: string
  readonly parentSegments: readonly string[]
  readonly name: string
  /** Identities of the root and each existing parent, outermost first, when planned. */
  readonly parents: readonly DirIdentity[]
  /** Parent folders below the deepest existing one that a publish creates, outermost first. */
  readonly missing: readonly string[]
}

/** Out of descriptors or a failing disk is not a folder that changed (issue 23 item 6). */
function unopenable(path: string, detail: string, code: string) {
  return code === 'EMFILE' || code === 'ENFILE' || detail === 'io-error'
    ? unreachablePath(path, code, 'write')
    : parentChanged(path, detail)
}

function parentChanged(path: string, detail: string) {
  return fail(
    'CONFLICT',
    `A folder on the way to "${path}" changed while Retrace was writing it; nothing was written there.`,
    { path, reason: 'parent-changed', detail },
  )
}

const NONE: DirIdentity = { dev: -1n, ino: -1n }

interface Created {
  readonly parentSegments: readonly string[]
  readonly name: string
  readonly identity: DirIdentity
}

/**
 * The directories one transaction (or one recovery pass) works in, each opened once from the root
 * without following links and held open: every create, rename, link, unlink and fsync is addressed
 * through these handles, never by re-resolving a path string. Bounded: past `maxOpenChains` the
 * least recently used chain is closed (and re-opened, and re-checked, if needed again).
 */
export class PinnedDirs {
  private readonly chains = new Map<string, OpenDir[]>()
  /** Every chain this run used (including folders it created), for re-checks after eviction. */
  private readonly used = new Map<string, readonly DirIdentity[]>()
  private readonly created: Created[] = []

  constructor(
    private readonly root: string,
    private readonly maxOpenChains = 64,
  ) {}

  /**
   * The parent folder of `place`, checked against the plan: the same folders must still be there
   * (same device and inode), and nothing may have appeared where the plan creates folders. With
   * `create`, missing folders are made one at a time inside their pinned parent.
   */
  async parent(place: Place, options: { create: boolean }): Promise<Outcome<OpenDir>> {
    const key = place.parentSegments.join('/')
    const cached = this.chains.get(key)
    if (cached) {
      for (const [index, identity] of place.parents.entries()) {
        if (!sameIdentity(cached[index]?.identity ?? NONE, identity))
          return parentChanged(place.path, 'folder-replaced')
      }
      if (!this.madeHereFrom(place, cached)) return parentChanged(place.path, 'folder-appeared')
      // Without /proc/self/fd a cached handle is addressed by path again: re-check the chain.
      if (PINNING_MODE === 'path-recheck' && !this.stillInPlace(place)) {
        return parentChanged(place.path, 'folder-replaced')
      }
      this.chains.delete(key)
      this.chains.set(key, cached)
      return ok(cached[cached.length - 1] as OpenDir)
    }
    const walked = openChain(this.root, place.parentSegments)
    if (walked.kind === 'failed') return unopenable(place.path, walked.reason, walked.code)
    const dirs = [...walked.chain.dirs]
    const release = () => dirs.forEach(closeDir)
    const usedBefore = this.used.get(key)
    if (usedBefore) {
      // Re-opened after eviction: it must be exactly the chain this run already worked in.
      const same =
        walked.chain.missing.length === 0 &&
        dirs.length === usedBefore.length &&
        dirs.every((dir, i) => sameIdentity(dir.identity, usedBefore[i] as DirIdentity))
      const planned = place.parents.every((identity, i) =>
        sameIdentity((dirs[i] as OpenDir | undefined)?.identity ?? NONE, identity),
      )
      if (!same || !planned) {
        release()
        return parentChanged(place.path, 'folder-replaced')
      }
      this.remember(key, dirs)
      return ok(dirs[dirs.length - 1] as OpenDir)
    }
    if (dirs.length < place.parents.length) {
      release()
      return parentChanged(place.path, 'folder-removed')
    }
    for (const [index, identity] of place.parents.entries()) {
      if (!sameIdentity((dirs[index] as OpenDir).identity, identity)) {
        release()
        return parentChanged(place.path, 'folder-replaced')
      }
    }
    // Folders the plan was going to create that exist now: this run made them for an earlier file
    // of the same transaction (gen/a/b.txt before gen/c.txt), or someone else did — refused.
    if (!this.madeHereFrom(place, dirs)) {
      release()
      return parentChanged(place.path, 'folder-appeared')
    }
    const missing = walked.chain.missing
    if (missing.length > 0) {
      if (!options.create) {
        release()
        return parentChanged(place.path, 'folder-missing')
      }
      for (const name of missing) {
        const parent = dirs[dirs.length - 1] as OpenDir
        try {
          mkdirSync(parent.at(name), { mode: 0o755 })
        } catch (error) {
          release()
          const code = (error as NodeJS.ErrnoException).code
          if (code === 'EEXIST') return parentChanged(place.path, 'folder-appeared')
          throw error
        }
        const child = openChild(parent, name)
        if (child.kind === 'failed') {
          release()
          return unopenable(place.path, `created-folder-${child.reason}`, child.code)
        }
        await syncDir(parent)
        this.created.push({
          parentSegments: place.parentSegments.slice(0, dirs.length - 1),
          name,
          identity: child.dir.identity,
        })
        dirs.push(child.dir)
      }
    }
    this.remember(key, dirs)
    return ok(dirs[dirs.length - 1] as OpenDir)
  }

  /**
   * Records a folder this run made itself (a directory a transaction creates), so later steps of
   * the same run accept it where their plan saw nothing, and a rollback may remove it again.
   */
  noteCreated(place: Place, identity: DirIdentity): void {
    this.created.push({ parentSegments: place.parentSegments, name: place.name, identity })
  }

  /** Every folder of `dirs` past the planned parents of `place` was made by this very run. */
  private madeHereFrom(place: Place, dirs: readonly OpenDir[]): boolean {
    for (let index = place.parents.length; index < dirs.length; index++) {
      const segments = place.parentSegments.slice(0, index)
      const identity = (dirs[index] as OpenDir).identity
      const made = this.created.some(
        (folder) =>
          sameIdentity(folder.identity, identity) &&
          folder.name === segments[segments.length - 1] &&
          folder.parentSegments.join('/') === segments.slice(0, -1).join('/'),
      )
      if (!made) return false
    }
    return true
  }

  /** True when this run created at least one folder. */
  get createdAny(): boolean {
    return this.created.length > 0
  }

  /**
   * After a step: walking from the root right now still reaches the very folders the step used.
   * False means a folder was moved or swapped while we worked; the caller undoes the step through
   * the pinned handles, which still name the folders it wrote into wherever they are now.
   */
  stillInPlace(place: Place): boolean {
    const identities = this.used.get(place.parentSegments.join('/'))
    return identities !== undefined && verifyChain(this.root, place.parentSegments, identities)
  }

  /** Removes folders this run created, deepest first, while they are empty and still ours. */
  removeCreated(): void {
    for (const folder of [...this.created].reverse()) {
      const walked = openChain(this.root, folder.parentSegments)
      if (walked.kind === 'failed') continue
      try {
        if (walked.chain.missing.length > 0) continue
        const parent = walked.chain.deepest
        const leaf = statLeaf(parent, folder.name)
        if (leaf.kind !== 'directory' || !sameIdentity(leaf.identity, folder.identity)) continue
        try {
          rmdirSync(parent.at(folder.name))
        } catch {
          // not empty (someone else put something there) or already gone: theirs to keep
        }
      } finally {
        walked.chain.close()
      }
    }
    this.created.length = 0
  }

  close(): void {
    for (const dirs of this.chains.values()) dirs.forEach(closeDir)
    this.chains.clear()
  }

  private remember(key: string, dirs: OpenDir[]): void {
    this.chains.set(key, dirs)
    this.used.set(
      key,
      dirs.map((dir) => dir.identity),
    )
    if (this.chains.size <= this.maxOpenChains) return
    const [oldest] = this.chains.keys()
    if (oldest === undefined || oldest === key) return
    this.chains.get(oldest)?.forEach(closeDir)
    this.chains.delete(oldest)
  }
}
