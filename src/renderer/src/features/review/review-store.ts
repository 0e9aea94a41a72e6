import type { ReviewCategory } from '../../../../shared/protocol'
import type { ScopeSlot, ScopeSlots } from '../../ui/project-scope'
import { createStore, type Store } from '../../ui/store'
import type { ReviewScope, ReviewSort, SubScope } from './use-review'

export interface ReviewViewState {
  readonly scope: ReviewScope | null
  /** The turn the person chose; null follows the latest turn with changes. */
  readonly pinnedTurnId: string | null
  readonly subScope: SubScope
  readonly category: ReviewCategory | null
  /** `command`: only This turn's files changed by commands (spec 06, step snapshots). */
  readonly source: 'command' | null
  /** What the filter box holds; the list is queried with it after a short pause in typing. */
  readonly search: string
  readonly sort: ReviewSort
  readonly selected: string | null
  readonly layout: 'unified' | 'split'
  /** Bumped when something outside asks Review to show a turn (turn card, blocked restore). */
  readonly opened: number
}

const INITIAL: ReviewViewState = {
  scope: null,
  pinnedTurnId: null,
  subScope: 'all',
  category: null,
  source: null,
  search: '',
  sort: 'path',
  selected: null,
  layout: 'split',
  opened: 0,
}

/**
 * Review's choices for a project, outside React and in that project's scope: leaving the tab and
 * coming back keeps them; closing the project drops them. It holds no resource of its own (its
 * only listeners are mounted views), so it needs no dispose.
 */
export const reviewStoreSlot: ScopeSlot<Store<ReviewViewState>> = {
  name: 'review.view',
  create: () => createStore(INITIAL),
}

/**
 * Shows a turn's changes in Review: optionally one file of them, or only the files its commands
 * changed.
 */
export function reviewTurn(
  scope: ScopeSlots,
  turnId: string,
  path: string | null = null,
  source: 'command' | null = null,
): void {
  scope.get(reviewStoreSlot).set((state) => ({
    ...state,
    scope: 'turn',
    pinnedTurnId: turnId,
    category: null,
    source,
    search: '',
    selected: path,
    opened: state.opened + 1,
  }))
}
