import { useState } from 'react'
import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { usePopover } from '../../ui/use-popover'
import { branchLabels } from './transcript-model'
import type { Branch } from '../session'

/**
 * The session's branches (spec 04): each with its last prompt; switching makes one active (the
 * files stay — the alignment banner says whether they match), archiving keeps everything and a
 * re-activation brings it back, and an archived branch can be deleted permanently (purge).
 */
export function BranchMenu(props: {
  branches: readonly Branch[]
  activeBranchId: string
  disabled: boolean
  onSwitch: (branchId: string) => void
  onArchive: (branchId: string, archived: boolean) => void
  onPurge: (branchId: string) => void
}) {
  const { t } = useI18n()
  const [confirming, setConfirming] = useState<string | null>(null)
  // A popover, not a Menu (see usePopover): each row has its own Archive / Delete buttons beside
  // the switch, which a menu's single-action items cannot hold.
  const popover = usePopover({
    initialFocus: '[aria-current="true"], button',
    // A delete half-confirmed must not still be armed when the list opens again.
    onClose: () => setConfirming(null),
  })
  const labels = branchLabels(props.branches)
  const nameOf = (branch: Branch) => {
    const label = labels.get(branch.branch_id)
    return label?.main ? t('branch.main') : t('branch.name', { n: label?.n ?? 0 })
  }
  const active = props.branches.find((b) => b.branch_id === props.activeBranchId)
  const live = props.branches.filter((b) => !b.archived)
  const archived = props.branches.filter((b) => b.archived)

  const row = (branch: Branch) => {
    const isActive = branch.branch_id === props.activeBranchId
    const name = nameOf(branch)
    return (
      <li key={branch.branch_id} className="branch-row" data-testid="branch-row" data-branch-id={branch.branch_id}>
        <button
          type="button"
          className="branch-pick"
          aria-current={isActive}
          aria-label={isActive ? `${name} (${t('branch.active')})` : t('branch.switchTo', { name })}
          disabled={props.disabled && !isActive}
          onClick={() => {
            if (!isActive) props.onSwitch(branch.branch_id)
            popover.close(true)
          }}
        >
          <span className="branch-name">
            {name}
            {isActive && <span className="badge badge-quiet">{t('branch.active')}</span>}
          </span>
          <span className="branch-prompt">{branch.last_prompt ?? t('branch.atStart')}</span>
        </button>
        {branch.archived ? (
          <span className="branch-row-actions">
            <button
              type="button"
              className="link-button"
              aria-label={t('branch.reactivateName', { name })}
              onClick={() => props.onArchive(branch.branch_id, false)}
              data-testid="branch-reactivate"
            >
              {t('branch.reactivate')}
            </button>
            {confirming === branch.branch_id ? (
              <button
                type="button"
                className="link-button danger-link"
                onClick={() => {
                  setConfirming(null)
                  props.onPurge(branch.branch_id)
                }}
                data-testid="branch-purge-confirm"
              >
                {t('branch.purgeConfirm', { name })}
              </button>
            ) : (
              <button
                type="button"
                className="link-button"
                aria-label={t('branch.purgeName', { name })}
                onClick={() => setConfirming(branch.branch_id)}
                data-testid="branch-purge"
              >
                {t('branch.purge')}
              </button>
            )}
          </span>
        ) : (
          !isActive && (
            <button
              type="button"
              className="icon-button"
              aria-label={t('branch.archiveName', { name })}
              title={t('branch.archiveName', { name })}
              onClick={() => props.onArchive(branch.branch_id, true)}
              data-testid="branch-archive"
            >
              <Icon name="archive" />
            </button>
          )
        )}
      </li>
    )
  }

  return (
    <div className="branch-menu">
      <button {...popover.buttonProps} type="button" className="branch-button" data-testid="branch-menu">
        <Icon name="git-branch" />
        <span className="branch-button-text">{t('branch.switcher', { name: active ? nameOf(active) : '' })}</span>
        <Icon name="chevron-down" />
      </button>
      {popover.open && (
        <div
          {...popover.panelProps}
          className="branch-popover"
          role="group"
          aria-label={t('branch.list')}
          data-testid="branch-list"
        >
          <ul className="branch-rows">{live.map(row)}</ul>
          {archived.length > 0 && (
            <>
              <p className="branch-heading">{t('branch.archived')}</p>
              <ul className="branch-rows">{archived.map(row)}</ul>
            </>
          )}
        </div>
      )}
    </div>
  )
}
