import { useCallback, useEffect, useImperativeHandle, useRef, type ReactNode, type Ref } from 'react'
import {
  Group,
  Panel,
  Separator,
  useDefaultLayout,
  usePanelRef,
  type PanelImperativeHandle,
} from 'react-resizable-panels'
import { useI18n } from '../../i18n'
import { useStore } from '../../ui/store'
import {
  CENTER_MIN_PX,
  CHAT_MIN_PX,
  dockedPanes,
  EXPLORER_MIN_PX,
  paneState,
  setPaneOpen,
  type Pane,
} from './layout-state'
import { useWindowWidth } from './use-window-width'
import './layout.css'

export interface LayoutHandle {
  toggle(pane: Pane): void
  /** Shows the pane (expanding or opening its drawer) so something in it can take focus. */
  show(pane: Pane): void
  /** Closes the pane if it is a drawer (a file opened from the explorer drawer is then visible). */
  dismissDrawer(pane: Pane): void
}

/**
 * Explorer | centre | chat. Wide windows dock both side panes as resizable, collapsible panes
 * (sizes persisted per window in localStorage); narrower ones dock what fits beside a centre of at
 * least 400 px and open the rest as drawers over it, so the centre is never crushed.
 */
/** A side pane over the centre: takes focus when it opens, Escape closes it and gives focus back. */
function Drawer(props: { pane: Pane; onClose: () => void; children: ReactNode }) {
  const element = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const returnFocus = document.activeElement
    const target =
      element.current?.querySelector<HTMLElement>('[role="tree"], textarea, input, button') ?? element.current
    target?.focus()
    return () => {
      if (returnFocus instanceof HTMLElement && document.activeElement === document.body) returnFocus.focus()
    }
  }, [])
  return (
    <div
      ref={element}
      tabIndex={-1}
      className={`drawer drawer-${props.pane}`}
      data-testid={`drawer-${props.pane}`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onClose()
      }}
    >
      {props.children}
    </div>
  )
}

export function Layout(props: {
  explorer: ReactNode
  center: ReactNode
  chat: ReactNode
  activityBar: ReactNode
  handle: Ref<LayoutHandle>
}) {
  const { t } = useI18n()
  const width = useWindowWidth()
  const docked = dockedPanes(width)
  const open = useStore(paneState)
  const explorerRef = usePanelRef()
  const chatRef = usePanelRef()
  const panelIds = [...(docked.explorer ? ['explorer'] : []), 'center', ...(docked.chat ? ['chat'] : [])]
  const persisted = useDefaultLayout({ id: 'retrace-workbench', panelIds, storage: localStorage })

  const refOf = useCallback((pane: Pane) => (pane === 'explorer' ? explorerRef : chatRef), [explorerRef, chatRef])
  const isDocked = useCallback((pane: Pane) => docked[pane], [docked])

  useImperativeHandle(
    props.handle,
    () => ({
      toggle(pane) {
        const panel = refOf(pane).current
        if (isDocked(pane) && panel) {
          if (panel.isCollapsed()) panel.expand()
          else panel.collapse()
        } else {
          setPaneOpen(pane, !(pane === 'explorer' ? paneState.get().explorerOpen : paneState.get().chatOpen))
        }
      },
      show(pane) {
        const panel = refOf(pane).current
        if (isDocked(pane) && panel) {
          if (panel.isCollapsed()) panel.expand()
        } else setPaneOpen(pane, true)
      },
      dismissDrawer(pane) {
        if (!isDocked(pane)) setPaneOpen(pane, false)
      },
    }),
    [refOf, isDocked],
  )

  // A pane that becomes a drawer starts closed; one that docks again reports its own state.
  useEffect(() => {
    if (!docked.explorer) setPaneOpen('explorer', false)
  }, [docked.explorer])
  useEffect(() => {
    if (!docked.chat) setPaneOpen('chat', false)
  }, [docked.chat])

  const trackCollapse = (pane: Pane, panel: PanelImperativeHandle | null) => {
    if (panel) setPaneOpen(pane, !panel.isCollapsed())
  }
  const drawer = (pane: Pane, content: ReactNode) => (
    <Drawer pane={pane} onClose={() => setPaneOpen(pane, false)}>
      {content}
    </Drawer>
  )

  return (
    <div className="workbench" data-testid="workbench">
      {props.activityBar}
      <div className="workbench-main">
        <Group
          id="retrace-workbench"
          data-testid="workbench-group"
          orientation="horizontal"
          className="workbench-group"
          defaultLayout={persisted.defaultLayout}
          onLayoutChanged={persisted.onLayoutChanged}
        >
          {docked.explorer && (
            <>
              <Panel
                id="explorer"
                data-testid="pane-explorer"
                panelRef={explorerRef}
                collapsible
                collapsedSize={0}
                minSize={`${EXPLORER_MIN_PX}px`}
                defaultSize="220px"
                maxSize="45%"
                className="pane pane-explorer"
                onResize={() => trackCollapse('explorer', explorerRef.current)}
              >
                <div className="pane-content" hidden={!open.explorerOpen}>
                  {props.explorer}
                </div>
              </Panel>
              <Separator
                id="separator-explorer"
                data-testid="separator-explorer"
                className="separator"
                aria-label={t('layout.resizeExplorer')}
              />
            </>
          )}
          <Panel id="center" data-testid="pane-center" minSize={`${CENTER_MIN_PX}px`} className="pane pane-center">
            {props.center}
          </Panel>
          {docked.chat && (
            <>
              <Separator
                id="separator-chat"
                data-testid="separator-chat"
                className="separator"
                aria-label={t('layout.resizeChat')}
              />
              <Panel
                id="chat"
                data-testid="pane-chat"
                panelRef={chatRef}
                collapsible
                collapsedSize={0}
                minSize={`${CHAT_MIN_PX}px`}
                defaultSize="330px"
                maxSize="60%"
                className="pane pane-chat"
                onResize={() => trackCollapse('chat', chatRef.current)}
              >
                <div className="pane-content" hidden={!open.chatOpen}>
                  {props.chat}
                </div>
              </Panel>
            </>
          )}
        </Group>
        {!docked.explorer && open.explorerOpen && drawer('explorer', props.explorer)}
        {!docked.chat && open.chatOpen && drawer('chat', props.chat)}
      </div>
    </div>
  )
}
