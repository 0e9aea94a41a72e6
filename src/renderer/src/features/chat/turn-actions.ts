import type { RestoreOperation } from './types'
import type { RestoreOffers } from '../session'

/**
 * The single-turn restores a turn card offers (spec 07: only the executable ones), from the
 * transcript's `restore` offers: Undo for the latest recoverable turn, Redo right after an Undo,
 * Reapply after a Revert, Revert for any other changed turn.
 */
export function executableActions(turnId: string, offers: RestoreOffers): RestoreOperation[] {
  const undone = offers.undone_turn_ids.includes(turnId)
  const isUndo = offers.undo_turn_id === turnId
  const isRedo = offers.redo_turn_id === turnId
  const actions: RestoreOperation[] = []
  if (isUndo) actions.push('undo')
  if (isRedo) actions.push('redo')
  if (undone && !isRedo) actions.push('reapply')
  if (!isUndo && !isRedo && !undone) actions.push('revert')
  return actions
}

/** Why a card's files are not as the turn left them, for its footer. */
export function restoredState(turnId: string, offers: RestoreOffers): 'undone' | 'reverted' | null {
  if (!offers.undone_turn_ids.includes(turnId)) return null
  return offers.redo_turn_id === turnId ? 'undone' : 'reverted'
}
