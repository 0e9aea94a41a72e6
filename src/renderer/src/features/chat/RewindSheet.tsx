import { useId, useState } from 'react'
import { useI18n, type MessageKey, type Translate } from '../../i18n'
import { Dialog } from '../../ui/Dialog'
import { ErrorLine } from '../../ui/ErrorLine'
import { Icon } from '../../ui/Icon'
import { failureMessage, isFailure } from '../../ui/outcome-message'
import { ConflictDiff } from './ConflictDiff'
import { FolderLines, REASON_TEXT } from './RestorePanel'
import { documentsByPath, RestoreDocumentCounts, RestoreDocuments } from './RestoreDocuments'
import {
  useRewind,
  type ApplyResult,
  type ConflictChoices,
  type RewindMode,
  type RewindPlan,
  type RewindTarget,
} from './use-rewind'

const MODES: readonly RewindMode[] = ['code_and_conversation', 'conversation', 'code']
const FILES_PAGE = 50

type PlanAction = RewindPlan['actions'][number]

function verbOf(action: PlanAction): MessageKey {
  if (action.target.kind === 'absent') return 'restore.action.delete'
  if (action.expected.kind === 'absent') return 'restore.action.recreate'
  return 'restore.action.restore'
}

function reasonText(reason: string, t: Translate): string {
  if (reason === 'outside-changes') return t('rewind.reason.outsideChanges')
  const key = REASON_TEXT.get(reason)
  return key ? t(key) : reason
}

function branchText(plan: RewindPlan, t: Translate): string {
  const branch = plan.impact.branch
  if (!branch) return ''
  if (branch.outcome === 'new_branch' && branch.head_is_root) return t('rewind.branch.newAtRoot')
  return t(`rewind.branch.${branch.outcome}`)
}

/**
 * The impact sheet of a multi-turn restore (spec 04 "Multi-turn Rewind"): the target prompt, the
 * turns undone, the files (paged), what happens to the branch, the mode, every conflict and
 * unavailable path with its reason (a conflict shows what changed), and the commands that cannot
 * be undone. Everything shown is the server's plan; Cancel changes nothing and a blocked plan has
 * no way to force it.
 */
export function RewindSheet(props: {
  projectId: string
  sessionId: string
  target: RewindTarget
  onClose: () => void
  onApplied: (result: ApplyResult, plan: RewindPlan) => void
  onOpenFile?: ((path: string) => void) | undefined
}) {
  const { t } = useI18n()
  const modeGroup = useId()
  const { state, mode, includeCommands, choices, preview, apply } = useRewind({
    projectId: props.projectId,
    sessionId: props.sessionId,
    target: props.target,
    onApplied: props.onApplied,
  })
  const [shown, setShown] = useState(FILES_PAGE)
  const applying = state.kind === 'applying'
  const plan = state.kind === 'planned' || state.kind === 'applying' ? state.plan : undefined
  const codeUnavailable = (plan?.code_unavailable?.length ?? 0) > 0
  const branchCode = props.target.branchCode === true

  const choose = (next: RewindMode) => {
    setShown(FILES_PAGE)
    void preview(next, includeCommands)
  }

  return (
    <Dialog
      title={
        branchCode
          ? t('align.sheetTitle')
          : t(props.target.boundary === 'before_turn' ? 'rewind.titleBefore' : 'rewind.titleAfter')
      }
      onClose={props.onClose}
      dismissible={!applying}
      backdropClassName="sheet-backdrop"
      className="rewind-sheet"
      headerClassName="rewind-header"
      // The checked mode first (the arrows then move between modes); a disabled button (Restore
      // while planning) cannot take focus, so the next enabled one does.
      initialFocus={'input[type="radio"]:checked, button:not(:disabled)'}
      testId="rewind-sheet"
      data={{ status: plan?.status ?? state.kind }}
    >
      <div className="rewind-body">
        {branchCode && <p className="rewind-target">{t('align.sheetLead')}</p>}
        {!branchCode && (
          <p className="rewind-target">
            <span>{t(props.target.boundary === 'before_turn' ? 'rewind.targetBefore' : 'rewind.targetAfter')}</span>
            <q className="rewind-prompt" title={props.target.prompt} data-testid="rewind-prompt">
              {props.target.prompt}
            </q>
          </p>
        )}
        {!branchCode && (
          <fieldset className="rewind-modes" disabled={applying}>
            <legend>{t('rewind.mode')}</legend>
            {MODES.map((option) => {
              const unavailable = option !== 'conversation' && codeUnavailable
              return (
                <label key={option} className="rewind-mode" data-unavailable={unavailable || undefined}>
                  <input
                    type="radio"
                    name={`${modeGroup}-mode`}
                    value={option}
                    checked={mode === option}
                    disabled={unavailable && mode !== option}
                    onChange={() => choose(option)}
                    data-testid={`rewind-mode-${option}`}
                  />
                  <span className="rewind-mode-text">
                    <span className="rewind-mode-label">{t(`rewind.mode.${option}`)}</span>
                    <span className="rewind-mode-hint">
                      {unavailable ? t('rewind.modeUnavailable') : t(`rewind.modeHint.${option}`)}
                    </span>
                  </span>
                </label>
              )
            })}
          </fieldset>
        )}
        {state.kind === 'planning' && (
          <p className="rewind-status" role="status">
            {state.progress && state.progress.total > 0
              ? t('rewind.progress', { done: state.progress.done, total: state.progress.total })
              : t('restore.planning')}
          </p>
        )}
        {state.kind === 'failed' && (
          <ErrorLine
            testId="rewind-failed"
            message={
              isFailure(state.failure, 'STALE_PLAN')
                ? t('restore.stale')
                : t('restore.failed', { message: failureMessage(state.failure, t) })
            }
          />
        )}
        {state.kind === 'ended' && <ErrorLine message={t(`restore.ended.${state.status}`)} />}
        {plan && (
          <PlanDetails
            plan={plan}
            projectId={props.projectId}
            sessionId={props.sessionId}
            shown={shown}
            onMore={() => setShown((n) => n + FILES_PAGE)}
            includeCommands={includeCommands}
            onIncludeCommands={(checked) => void preview(mode, checked)}
            choices={choices}
            onChoose={(next) => void preview(mode, includeCommands, next)}
            onOpenFile={props.onOpenFile}
            disabled={applying}
          />
        )}
      </div>
      <footer className="rewind-buttons">
        {state.kind === 'failed' && state.plan && state.key && state.failure.kind !== 'error' ? (
          <button
            type="button"
            className="primary"
            onClick={() => void apply(state.plan as RewindPlan, state.key as string)}
          >
            {t('explorer.retry')}
          </button>
        ) : state.kind === 'failed' || state.kind === 'ended' ? (
          <button type="button" onClick={() => void preview(mode, includeCommands, choices)}>
            {t('restore.previewAgain')}
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={plan?.status !== 'ready' || applying || state.kind !== 'planned'}
            onClick={() => state.kind === 'planned' && void apply(state.plan, state.key)}
            data-testid="rewind-confirm"
          >
            {applying
              ? state.progress
                ? t('restore.applyingProgress', { done: state.progress.done, total: state.progress.total })
                : t('restore.applying')
              : branchCode
                ? t('align.restore')
                : t('rewind.confirm')}
          </button>
        )}
        <button type="button" onClick={props.onClose} disabled={applying} data-testid="rewind-cancel">
          {t('explorer.cancel')}
        </button>
      </footer>
    </Dialog>
  )
}

function PlanDetails(props: {
  plan: RewindPlan
  projectId: string
  sessionId: string
  shown: number
  onMore: () => void
  includeCommands: boolean
  onIncludeCommands: (checked: boolean) => void
  choices: ConflictChoices
  onChoose: (choices: ConflictChoices) => void
  onOpenFile?: ((path: string) => void) | undefined
  disabled: boolean
}) {
  const { t } = useI18n()
  const { plan } = props
  const code = plan.mode !== 'conversation'
  const files = plan.actions
  const rest = files.length - props.shown
  const unavailable = plan.status === 'unavailable' ? plan.unavailable : (plan.code_unavailable ?? [])
  const documents = documentsByPath(plan)
  return (
    <>
      <ul className="rewind-summary" data-testid="rewind-summary">
        <li data-testid="rewind-turns">{t('rewind.turns', { count: plan.impact.turns })}</li>
        <li data-testid="rewind-files">
          {code ? t('rewind.files', { count: plan.impact.files }) : t('rewind.noFiles')}
        </li>
        <li data-testid="rewind-branch">{branchText(plan, t)}</li>
        {plan.mode === 'conversation' && plan.impact.branch?.outcome === 'new_branch' && (
          <li className="rewind-note">{t('rewind.filesStay')}</li>
        )}
        {plan.prompt_text && <li className="rewind-note">{t('rewind.promptBack')}</li>}
      </ul>
      {code && plan.impact.command_files > 0 && (
        <label className="restore-commands">
          <input
            type="checkbox"
            checked={props.includeCommands}
            disabled={props.disabled}
            onChange={(event) => props.onIncludeCommands(event.target.checked)}
            data-testid="rewind-include-commands"
          />
          {t('restore.includeCommands', { count: plan.impact.command_files })}
        </label>
      )}
      {plan.status === 'blocked' && (
        <section className="rewind-section restore-blocked" aria-label={t('rewind.blocked')}>
          <p className="restore-lead">{t('rewind.blocked')}</p>
          <ul className="restore-paths restore-conflicts">
            {plan.conflicts.map((conflict, index) => (
              <li key={`${conflict.path}:${index}`} data-testid="rewind-conflict" data-path={conflict.path}>
                <div className="restore-conflict-head">
                  {conflict.path !== '' && <code>{conflict.path}</code>}
                  <span>{conflict.message}</span>
                </div>
                {conflict.reason === 'changed-since' && conflict.path !== '' && (
                  <ConflictDiff
                    projectId={props.projectId}
                    sessionId={props.sessionId}
                    path={conflict.path}
                    planHash={plan.plan_hash}
                  />
                )}
                {conflict.path !== '' && (
                  <div className="restore-conflict-actions">
                    {conflict.reason === 'changed-since' && (
                      <>
                        <button
                          type="button"
                          disabled={props.disabled}
                          aria-label={t('rewind.keepMineNamed', { path: conflict.path })}
                          onClick={() =>
                            props.onChoose({ ...props.choices, keep: [...props.choices.keep, conflict.path] })
                          }
                          data-testid="rewind-keep-mine"
                        >
                          {t('rewind.keepMine')}
                        </button>
                        <button
                          type="button"
                          disabled={props.disabled}
                          aria-label={t('rewind.includeItNamed', { path: conflict.path })}
                          onClick={() =>
                            props.onChoose({ ...props.choices, include: [...props.choices.include, conflict.path] })
                          }
                          data-testid="rewind-include-it"
                        >
                          {t('rewind.includeIt')}
                        </button>
                      </>
                    )}
                    {props.onOpenFile && (
                      <button type="button" onClick={() => props.onOpenFile?.(conflict.path)}>
                        <Icon name="go-to-file" /> {t('review.open')}
                      </button>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {(plan.kept?.length ?? 0) > 0 && (
        <section className="rewind-section" aria-label={t('rewind.keptTitle')}>
          <p className="restore-lead">{t('rewind.keptTitle')}</p>
          <ul className="restore-paths" data-testid="rewind-kept">
            {plan.kept?.map((path) => (
              <li key={path}>
                <code>{path}</code>
                <button
                  type="button"
                  className="link-button"
                  disabled={props.disabled}
                  aria-label={t('rewind.unkeepNamed', { path })}
                  onClick={() =>
                    props.onChoose({ ...props.choices, keep: props.choices.keep.filter((kept) => kept !== path) })
                  }
                >
                  {t('rewind.unkeep')}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {unavailable.length > 0 && (
        <section className="rewind-section restore-unavailable" aria-label={t('rewind.unavailable')}>
          <p className="restore-lead">{t('rewind.unavailable')}</p>
          <ul className="restore-paths">
            {unavailable.map((entry, index) => (
              <li key={`${entry.path}:${index}`} data-testid="rewind-unavailable">
                <code>{entry.path}</code>
                <span>{reasonText(entry.reason, t)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {code && files.length > 0 && (
        <section className="rewind-section" aria-label={t('rewind.filesTitle')}>
          <ul className="restore-paths" data-testid="rewind-file-list">
            {files.slice(0, props.shown).map((action) => (
              <li key={action.path} data-testid="rewind-file">
                <span className="restore-verb">{t(verbOf(action))}</span>
                <code>{action.path}</code>
                <RestoreDocumentCounts document={documents.get(action.path)} />
                {action.source === 'command' && <span className="restore-source">{t('restore.fromCommand')}</span>}
                {action.changed_outside && <span className="restore-source">{t('rewind.changedOutside')}</span>}
              </li>
            ))}
          </ul>
          {rest > 0 && (
            <button type="button" className="link-button" onClick={props.onMore}>
              {t('rewind.more', { count: Math.min(rest, FILES_PAGE) })}
            </button>
          )}
        </section>
      )}
      {code && <FolderLines folders={plan.folders} />}
      {code && <RestoreDocuments plan={plan} />}
      {(plan.side_effects?.length ?? 0) > 0 && (
        <section className="rewind-section rewind-side-effects" aria-label={t('rewind.sideEffects')}>
          <p className="restore-lead">{t('rewind.sideEffects')}</p>
          <ul className="restore-paths" data-testid="rewind-side-effects">
            {plan.side_effects?.map((effect, index) => (
              <li key={index}>
                <code>{effect.command}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  )
}
