import { useI18n, type MessageKey } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { useStore } from '../../ui/store'
import { displayChord } from './keys'
import { paneState } from './layout-state'
import type { Workbench } from './workbench'

/** The slim bar at the window's left edge: pane toggles and the views, always reachable. */
export function ActivityBar(props: { workbench: Workbench; reviewActive: boolean }) {
  const { t } = useI18n()
  const panes = useStore(paneState)
  const button = (id: string, icon: string, label: MessageKey, pressed?: boolean) => {
    const chord = props.workbench.commands.get(id)?.keybindings?.[0]
    const title = chord ? `${t(label)} (${displayChord(chord)})` : t(label)
    return (
      <button
        type="button"
        className="activity-button"
        aria-label={t(label)}
        title={title}
        aria-pressed={pressed}
        onClick={() => props.workbench.run(id)}
        data-testid={`activity-${id}`}
      >
        <Icon name={icon} />
      </button>
    )
  }
  return (
    <nav className="activity-bar" aria-label={t('layout.activityBar')}>
      {button('layout.toggleExplorer', 'files', 'layout.explorer', panes.explorerOpen)}
      {button('palette.files', 'search', 'command.quickOpen')}
      {button('review.open', 'diff', 'command.openReview', props.reviewActive)}
      <span className="activity-spacer" />
      {button('layout.toggleChat', 'comment-discussion', 'layout.chat', panes.chatOpen)}
      {button('help.shortcuts', 'keyboard', 'command.shortcuts')}
    </nav>
  )
}
