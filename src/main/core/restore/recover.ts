import { applyEffects, StaleEffects, type BranchEffects } from '../conversation'
import { transactionStatus } from '../journal'
import { inImmediateTransaction, type Database } from '../store'
import { markEffectsApplied, openIntents, settleIntent, type IntentStatus } from './intents'

/**
 * Start-up recovery of restores (after the journal's own): an intent is settled from its journal
 * transaction, never from the directory; a multi-turn restore whose files committed moves the
 * conversation with them if the process stopped before it did.
 */
/** Settles every intent a stopped process left `applying`, from its transaction's status. */
export function recoverIntents(db: Database): void {
  for (const intent of openIntents(db)) {
    if (intent.transaction_id === null) {
      settleIntent(db, intent.intent_id, 'rolled_back', null)
      continue
    }
    const settled = transactionStatus(db, intent.transaction_id)
    if (settled === undefined || settled === 'prepared') continue
    const status: IntentStatus =
      settled === 'committed' ? 'committed' : settled === 'recovery_required' ? 'recovery_required' : 'rolled_back'
    if (status === 'committed' && intent.effects !== null) {
      // The files were committed but the process stopped before the conversation moved with
      // them: move it now, from the effects recorded before any file was touched.
      const effects = JSON.parse(intent.effects) as BranchEffects
      try {
        inImmediateTransaction(db, () => {
          applyEffects(db, intent.session_id, effects)
          settleIntent(db, intent.intent_id, 'committed', intent.transaction_id)
          markEffectsApplied(db, intent.intent_id)
        })
      } catch (error) {
        if (!(error instanceof StaleEffects)) throw error
        settleIntent(db, intent.intent_id, 'recovery_required', intent.transaction_id)
      }
      continue
    }
    settleIntent(db, intent.intent_id, status, intent.transaction_id)
  }
}
