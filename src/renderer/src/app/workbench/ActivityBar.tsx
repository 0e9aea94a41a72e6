import { hideSearchView, searchViewState } from '../../features/search'
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
  const searchShown = useStore(searchViewState, (state) => state.open)
  const button = (id: string, icon: string, label: MessageKey, pressed?: boolean, onClick?: () => void) => {
    const chord = props.workbench.commands.get(id)?.keybindings?.[0]
    const title = chord ? `${t(label)} (${displayChord(chord)})` : t(label)
    return (
      <button
        type="button"
        className="activity-button"
        aria-label={t(label)}
        title={title}
        aria-pressed={pressed}
        onClick={onClick ?? (() => props.workbench.run(id))}
        data-testid={`activity-${id}`}
      >
        <Icon name={icon} />
      </button>
    )
  }
  return (
    <nav className="activity-bar" aria-label={t('layout.activityBar')}>
      {/* The side bar shows the explorer or the search view; as in VS Code, the icon of the view on
          screen collapses the side bar, the other one switches to its view. */}
      {button(
        'layout.toggleExplorer',
        'files',
        'layout.explorer',
        panes.explorerOpen && !searchShown,
        searchShown && panes.explorerOpen ? hideSearchView : undefined,
      )}
      {button(
        'search.find',
        'search',
        'command.findInFiles',
        panes.explorerOpen && searchShown,
        searchShown && panes.explorerOpen ? () => props.workbench.run('layout.toggleExplorer') : undefined,
      )}
      {button('palette.files', 'go-to-file', 'command.quickOpen')}
      {button('review.open', 'diff', 'command.openReview', props.reviewActive)}
      <span className="activity-spacer" />
      {button('layout.toggleChat', 'comment-discussion', 'layout.chat', panes.chatOpen)}
      {button('help.shortcuts', 'keyboard', 'command.shortcuts')}
    </nav>
  )
}
