import { useI18n, type MessageKey, type Translate } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import type { RestorePlan, RestoreOperation } from './types'
import type { RestoreOptions, RestoreState } from './use-restore'
import { ConflictDiff } from './ConflictDiff'
import { Icon } from '../../ui/Icon'
import { heldReasonText } from '../session'
import { ErrorLine } from '../../ui/ErrorLine'
import { documentsByPath, RestoreDocumentCounts, RestoreDocuments } from './RestoreDocuments'

type PlanAction = RestorePlan['actions'][number]

export const OPERATION_LABEL: Record<RestoreOperation, MessageKey> = {
  undo: 'turnCard.undo',
  redo: 'turnCard.redo',
  revert: 'turnCard.revert',
  reapply: 'turnCard.reapply',
}

/** Every restore names the boundary it goes to (spec 04). */
const CONFIRM_TEXT: Record<RestoreOperation, MessageKey> = {
  undo: 'restore.confirmUndo',
  redo: 'restore.confirmRedo',
  revert: 'restore.confirmRevert',
  reapply: 'restore.confirmReapply',
}

export const REASON_TEXT = new Map<string, MessageKey>([
  ['expired', 'restore.reason.expired'],
  ['not-exact', 'restore.reason.notExact'],
  ['directory', 'restore.reason.directory'],
  ['no-recovery-blob', 'restore.reason.noBlob'],
  ['missing', 'restore.reason.noBlob'],
  ['file-folder-swap', 'restore.reason.fileFolderSwap'],
  ['symlink', 'restore.reason.symlink'],
  ['submodule', 'restore.reason.submodule'],
  ['too-large', 'restore.reason.tooLarge'],
  ['snapshot-expired', 'restore.reason.snapshotExpired'],
  ['no-snapshots', 'restore.reason.noSnapshots'],
  ['outside-changes', 'rewind.reason.outsideChanges'],
])

/**
 * Issue 16: the impact sheet's "Also restore files changed by commands", unchecked by default;
 * ticking it previews again with the command changes as their own actions.
 */
function CommandsToggle(props: {
  plan: RestorePlan
  options: RestoreOptions
  onPreview: (operation: RestoreOperation, options: RestoreOptions) => void
}) {
  const { t } = useI18n()
  const { plan, options } = props
  if (
    plan.impact.command_files === 0 ||
    ((plan.operation as RestoreOperation) !== 'undo' && (plan.operation as RestoreOperation) !== 'revert')
  )
    return null
  return (
    <label className="restore-commands">
      <input
        type="checkbox"
        data-testid="restore-include-commands"
        checked={options.includeCommands}
        onChange={(event) =>
          props.onPreview(plan.operation as RestoreOperation, {
            includeCommands: event.target.checked,
            includeConflicting: [],
          })
        }
      />
      {t('restore.includeCommands', { count: plan.impact.command_files })}
    </label>
  )
}

/**
 * Issue 23 item 14: the folders a restore removes or makes besides its files, as one line each —
 * every path a restore writes is in its preview. A folder is shown with a trailing slash.
 */
export function FolderLines(props: { folders: RestorePlan['folders'] }) {
  const { t } = useI18n()
  const list = (paths: readonly string[]) => paths.map((path) => `${path}/`).join(', ')
  const { removed, created } = props.folders
  if (removed.length === 0 && created.length === 0) return null
  return (
    <ul className="restore-paths restore-folders">
      {removed.length > 0 && (
        <li data-testid="restore-folders-removed">{t('restore.foldersRemoved', { folders: list(removed) })}</li>
      )}
      {created.length > 0 && (
        <li data-testid="restore-folders-created">{t('restore.foldersCreated', { folders: list(created) })}</li>
      )}
    </ul>
  )
}

/** Held files shown in the sheet; the rest are counted (a dependency folder holds thousands). */
const HELD_SHOWN = 50

/**
 * Issue 23: files changed during the turn's command steps that are not the commands' own (you
 * wrote them, another session did, they lie in node_modules/ or a nested repository). The engine
 * never restores them unless named: each has its reason and its own "Include it", which previews
 * again with that file (and the commands' changes) included. An included file is listed among the
 * actions with "included by you", and unticking it there previews again without it.
 */
function HeldFiles(props: {
  plan: RestorePlan
  options: RestoreOptions
  onPreview: (operation: RestoreOperation, options: RestoreOptions) => void
}) {
  const { t } = useI18n()
  const { plan, options } = props
  const held = (plan.kind === 'turn' ? plan.command_held : undefined) ?? []
  if (held.length === 0) return null
  return (
    <section className="restore-held" aria-labelledby={`restore-held-${plan.turn_id}`} data-testid="restore-held-list">
      <p className="restore-lead" id={`restore-held-${plan.turn_id}`}>
        {t('restore.heldLead', { count: held.length })}
      </p>
      <ul className="restore-paths">
        {held.slice(0, HELD_SHOWN).map((entry) => (
          <li key={entry.path} data-testid="restore-held" data-path={entry.path} data-reason={entry.reason}>
            <code>{entry.path}</code>
            <span>{heldReasonText(entry, t)}</span>
            <label className="restore-include">
              <input
                type="checkbox"
                checked={false}
                aria-label={t('restore.includeHeldNamed', { path: entry.path })}
                onChange={() =>
                  props.onPreview(plan.operation as RestoreOperation, {
                    includeCommands: true,
                    includeConflicting: [...options.includeConflicting, entry.path],
                  })
                }
              />
              {t('restore.includeHeld')}
            </label>
          </li>
        ))}
      </ul>
      {held.length > HELD_SHOWN && (
        <p className="restore-hint">{t('restore.heldMore', { count: held.length - HELD_SHOWN })}</p>
      )}
    </section>
  )
}

function actionVerb(action: PlanAction): MessageKey {
  if (action.target.kind === 'absent') return 'restore.action.delete'
  if (action.expected.kind === 'absent') return 'restore.action.recreate'
  return 'restore.action.restore'
}

function reasonText(reason: string, t: Translate): string {
  const key = REASON_TEXT.get(reason)
  return key ? t(key) : reason
}

/**
 * The inline confirm of a turn card's restore: the server's plan, its impact and every path it
 * writes; a blocked plan lists each conflict and offers no confirm (there is no Force).
 */
export function RestorePanel(props: {
  state: RestoreState
  /** For a blocked plan: whose diff to ask for and where its actions go. */
  conflicts?: {
    projectId: string
    sessionId: string
    onOpenFile?: ((path: string) => void) | undefined
    onReview?: ((path: string) => void) | undefined
  }
  onConfirm: (plan: RestorePlan, idempotencyKey: string) => void
  onPreview: (operation: RestoreOperation, options?: RestoreOptions) => void
  onClose: () => void
}) {
  const { t } = useI18n()
  const { state } = props
  const cancel = (label: MessageKey = 'explorer.cancel') => (
    <button type="button" onClick={props.onClose} data-testid="restore-cancel">
      {t(label)}
    </button>
  )

  switch (state.kind) {
    case 'idle':
      return null
    case 'planning':
      return (
        <div className="restore-panel" role="status">
          {t('restore.planning')}
        </div>
      )
    case 'planned':
    case 'applying': {
      const { plan } = state
      const operation = t(OPERATION_LABEL[plan.operation as RestoreOperation])
      const options: RestoreOptions =
        state.kind === 'planned' ? state.options : { includeCommands: false, includeConflicting: [] }
      const toggle =
        state.kind === 'planned' ? (
          <>
            <CommandsToggle plan={plan} options={options} onPreview={props.onPreview} />
            <HeldFiles plan={plan} options={options} onPreview={props.onPreview} />
          </>
        ) : null
      const includedByYou = new Set(options.includeConflicting)
      if (plan.status === 'blocked') {
        return (
          <div className="restore-panel restore-blocked" data-testid="restore-confirm" data-status="blocked">
            {toggle}
            <p className="restore-lead">{t('restore.blocked', { operation })}</p>
            <ul className="restore-paths restore-conflicts">
              {plan.conflicts.map((conflict, index) => (
                <li key={`${conflict.path}:${conflict.reason}:${index}`} data-testid="restore-conflict">
                  <div className="restore-conflict-head">
                    {conflict.path !== '' && <code>{conflict.path}</code>}
                    <span>{conflict.message}</span>
                    {conflict.source === 'command' && (
                      <label className="restore-include">
                        <input
                          type="checkbox"
                          data-testid="restore-include-conflicting"
                          aria-label={t('restore.includeConflictingNamed', { path: conflict.path })}
                          checked={false}
                          onChange={() =>
                            props.onPreview(plan.operation as RestoreOperation, {
                              includeCommands: true,
                              includeConflicting: [...options.includeConflicting, conflict.path],
                            })
                          }
                        />
                        {t('restore.includeConflicting')}
                      </label>
                    )}
                  </div>
                  {conflict.path !== '' && props.conflicts && (
                    <>
                      {conflict.reason === 'changed-since' && (
                        <ConflictDiff
                          projectId={props.conflicts.projectId}
                          sessionId={props.conflicts.sessionId}
                          path={conflict.path}
                          planHash={plan.plan_hash}
                        />
                      )}
                      <div className="restore-conflict-actions">
                        {props.conflicts.onOpenFile && (
                          <button
                            type="button"
                            data-testid="conflict-open"
                            onClick={() => props.conflicts?.onOpenFile?.(conflict.path)}
                          >
                            <Icon name="go-to-file" /> {t('review.open')}
                          </button>
                        )}
                        {props.conflicts.onReview && (
                          <button
                            type="button"
                            data-testid="conflict-review"
                            onClick={() => props.conflicts?.onReview?.(conflict.path)}
                          >
                            <Icon name="diff" /> {t('turnCard.review')}
                          </button>
                        )}
                      </div>
                    </>
                  )}
                </li>
              ))}
            </ul>
            <p className="restore-hint">{t('restore.blockedHint')}</p>
            <div className="restore-buttons">{cancel('turnCard.close')}</div>
          </div>
        )
      }
      if (plan.status === 'unavailable') {
        return (
          <div className="restore-panel restore-unavailable" data-testid="restore-confirm" data-status="unavailable">
            {toggle}
            <p className="restore-lead">{t('restore.unavailable', { operation })}</p>
            <ul className="restore-paths">
              {plan.unavailable.map((entry, index) => (
                <li key={`${entry.path}:${index}`}>
                  <code>{entry.path}</code>
                  <span>{reasonText(entry.reason, t)}</span>
                </li>
              ))}
            </ul>
            <div className="restore-buttons">{cancel('turnCard.close')}</div>
          </div>
        )
      }
      const applying = state.kind === 'applying'
      const nothing = plan.actions.length === 0
      const documents = documentsByPath(plan)
      return (
        <div className="restore-panel" data-testid="restore-confirm" data-status="ready">
          {toggle}
          {nothing ? (
            <p className="restore-lead">{t('restore.onlyCommands')}</p>
          ) : (
            <p className="restore-lead">
              {t(CONFIRM_TEXT[plan.operation as RestoreOperation], { count: plan.impact.files })}
            </p>
          )}
          <ul className="restore-paths">
            {plan.actions.map((action) => (
              <li key={action.path} data-testid="restore-action" data-path={action.path}>
                <span className="restore-verb">{t(actionVerb(action))}</span>
                <code>{action.path}</code>
                <RestoreDocumentCounts document={documents.get(action.path)} />
                {action.source === 'command' && <span className="restore-source">{t('restore.fromCommand')}</span>}
                {state.kind === 'planned' && includedByYou.has(action.path) && (
                  <label className="restore-include">
                    <input
                      type="checkbox"
                      checked
                      aria-label={t('restore.includedNamed', { path: action.path })}
                      onChange={() =>
                        props.onPreview(plan.operation as RestoreOperation, {
                          includeCommands: options.includeCommands,
                          includeConflicting: options.includeConflicting.filter((path) => path !== action.path),
                        })
                      }
                    />
                    {t('restore.included')}
                  </label>
                )}
              </li>
            ))}
          </ul>
          <FolderLines folders={plan.folders} />
          <RestoreDocuments plan={plan} />
          <div className="restore-buttons">
            <button
              type="button"
              className="primary"
              disabled={applying || nothing}
              onClick={() => props.onConfirm(plan, state.idempotencyKey)}
              data-testid="restore-confirm-apply"
            >
              {applying
                ? state.progress
                  ? t('restore.applyingProgress', { done: state.progress.done, total: state.progress.total })
                  : t('restore.applying')
                : t('restore.apply', { operation, count: plan.impact.files })}
            </button>
            {!applying && cancel()}
          </div>
        </div>
      )
    }
    case 'failed': {
      const { plan, idempotencyKey } = state
      const retrySame =
        plan !== undefined &&
        idempotencyKey !== undefined &&
        (state.failure.kind === 'timeout' || state.failure.kind === 'disconnected')
      const stale = state.failure.kind === 'error' && state.failure.error.code === 'STALE_PLAN'
      return (
        <div className="restore-panel restore-failed" data-testid="restore-failed">
          <ErrorLine
            className="restore-lead"
            message={stale ? t('restore.stale') : t('restore.failed', { message: failureMessage(state.failure, t) })}
          />
          <div className="restore-buttons">
            {retrySame ? (
              <button type="button" onClick={() => props.onConfirm(plan, idempotencyKey)}>
                {t('explorer.retry')}
              </button>
            ) : (
              <button type="button" onClick={() => props.onPreview(state.operation)}>
                {t('restore.previewAgain')}
              </button>
            )}
            {cancel('turnCard.close')}
          </div>
        </div>
      )
    }
    case 'ended':
      return (
        <div className="restore-panel restore-failed">
          <ErrorLine className="restore-lead" message={t(`restore.ended.${state.status}`)} />
          <div className="restore-buttons">{cancel('turnCard.close')}</div>
        </div>
      )
  }
}
