import type { RequestClient } from '../../transport'
import type { ScopeSlot, ScopeSlots } from '../../ui/project-scope'
import { TabsModel } from './tabs'

/**
 * Everything the window keeps for one open project, in one disposable place instead of a map per
 * concern keyed by project id: its tabs (and their editors' view states) and whatever a feature
 * registers in a slot. Switching projects and back keeps a scope; disposing it releases all of it.
 */
export class ProjectScope implements ScopeSlots {
  readonly tabs = new TabsModel()
  private readonly slots = new Map<ScopeSlot<unknown>, unknown>()
  private readonly cleanups: Array<() => void> = []
  private disposed = false

  constructor(
    readonly projectId: string,
    private readonly client: RequestClient,
  ) {}

  /** The slot's value for this project, created on first use. */
  get<T>(slot: ScopeSlot<T>): T {
    if (this.disposed) throw new Error(`project scope ${this.projectId} is disposed`)
    const key = slot as ScopeSlot<unknown>
    if (this.slots.has(key)) return this.slots.get(key) as T
    const value = slot.create({ projectId: this.projectId, client: this.client })
    this.slots.set(key, value)
    return value
  }

  /** Runs when the scope is disposed (in reverse order of registration, as nested resources unwind). */
  onDispose(cleanup: () => void): void {
    if (this.disposed) cleanup()
    else this.cleanups.push(cleanup)
  }

  get isDisposed(): boolean {
    return this.disposed
  }

  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    for (const [slot, value] of [...this.slots].reverse()) slot.dispose?.(value)
    this.slots.clear()
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup()
  }
}
