import { Suspense, useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react'
import { baseName, parentPath } from '../../../../shared/paths'
import { useI18n } from '../../i18n'
import { fileIcon } from '../../ui/file-icons'
import { Icon } from '../../ui/Icon'
import { MenuButton } from '../../ui/Menu'
import { useStore } from '../../ui/store'
import type { GitFileState } from '../../../../shared/protocol'
import type { Tab, TabsModel } from './tabs'
import './tabs.css'

/**
 * The centre's tab strip (WAI-ARIA tabs, each named by its file name) and the active tab's panel.
 * Single click activates, double click pins a preview tab, middle click closes; ←/→/Home/End
 * move between tabs, Delete closes the focused one; the "…" menu has Close, Close others, Pin.
 */
export function CenterTabs(props: {
  tabs: TabsModel
  gitState: (path: string) => GitFileState | undefined
  /** Paths with unpublished edits: their tabs show the dirty dot (spec 08). */
  isDirty?: (path: string) => boolean
  renderTab: (tab: Tab) => ReactNode
  empty: ReactNode
}) {
  const { t } = useI18n()
  const { tabs: model } = props
  const state = useStore(model.store)
  const strip = useRef<HTMLDivElement>(null)
  const active = state.tabs.find((tab) => tab.id === state.activeId) ?? null
  const names = state.tabs.map((tab) => (tab.kind === 'file' ? baseName(tab.path) : ''))

  // The active tab is always in sight in an overflowing strip, however it became active (quick open,
  // Ctrl+Tab, a link, a restored window). 'nearest' scrolls only as far as needed, and only the strip.
  const activeId = state.activeId
  useEffect(() => {
    if (activeId === null) return
    strip.current
      ?.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(activeId)}"]`)
      ?.scrollIntoView({ block: 'nearest', inline: 'nearest' })
  }, [activeId, state.tabs.length])

  const labelOf = (tab: Tab) => (tab.kind === 'file' ? baseName(tab.path) : t('center.review'))
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // Keys act on the focused tab (which may differ from the active one after a click elsewhere).
    const focusedId = (document.activeElement as HTMLElement | null)?.dataset.tabId ?? state.activeId
    const index = state.tabs.findIndex((tab) => tab.id === focusedId)
    const focused = state.tabs[index]
    const focusTab = (i: number) => {
      const tab = state.tabs[(i + state.tabs.length) % state.tabs.length]
      if (!tab) return
      model.activate(tab.id)
      requestAnimationFrame(() =>
        strip.current?.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(tab.id)}"]`)?.focus(),
      )
    }
    if (event.key === 'ArrowRight') focusTab(index + 1)
    else if (event.key === 'ArrowLeft') focusTab(index - 1)
    else if (event.key === 'Home') focusTab(0)
    else if (event.key === 'End') focusTab(state.tabs.length - 1)
    else if (event.key === 'Delete' && focused) {
      model.close(focused.id)
      const next = model.state.activeId
      if (next)
        requestAnimationFrame(() =>
          strip.current?.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(next)}"]`)?.focus(),
        )
    } else return
    event.preventDefault()
  }

  return (
    <div className="center">
      <div className="tab-strip">
        <div ref={strip} className="tabs" role="tablist" aria-label={t('center.tabs')} onKeyDown={onKeyDown}>
          {state.tabs.map((tab, index) => {
            const selected = tab.id === state.activeId
            const git = tab.kind === 'file' ? props.gitState(tab.path) : undefined
            const icon = tab.kind === 'file' ? fileIcon(tab.path) : { icon: 'diff', tint: 'tint-review' }
            const duplicate = tab.kind === 'file' && names.filter((n) => n === names[index]).length > 1
            return (
              <div
                key={tab.id}
                className="tab-wrap"
                data-selected={selected}
                data-preview={tab.kind === 'file' && tab.preview ? 'true' : undefined}
                data-git={git}
              >
                <div
                  role="tab"
                  id={`tab-${tab.id}`}
                  data-tab-id={tab.id}
                  data-testid={tab.kind === 'review' ? 'tab-review' : 'tab-file'}
                  data-path={tab.kind === 'file' ? tab.path : undefined}
                  aria-selected={selected}
                  aria-controls="center-panel"
                  tabIndex={selected ? 0 : -1}
                  className="tab"
                  title={tab.kind === 'file' ? tab.path : undefined}
                  onClick={() => model.activate(tab.id)}
                  onDoubleClick={() => model.pin(tab.id)}
                  onAuxClick={(event) => {
                    if (event.button === 1) model.close(tab.id)
                  }}
                  onMouseDown={(event) => {
                    if (event.button === 1) event.preventDefault()
                  }}
                >
                  <Icon name={icon.icon} className={`tab-icon ${icon.tint}`} />
                  <span className="tab-name">{labelOf(tab)}</span>
                  {duplicate && tab.kind === 'file' && <span className="tab-dir">{parentPath(tab.path) || '/'}</span>}
                  {tab.kind === 'file' && props.isDirty?.(tab.path) && (
                    <span className="tab-dirty" data-testid="tab-dirty" role="img" aria-label={t('tab.unsaved')} />
                  )}
                </div>
                <button
                  type="button"
                  className="tab-close"
                  tabIndex={-1}
                  aria-hidden="true"
                  title={t('command.closeTab')}
                  onClick={() => model.close(tab.id)}
                >
                  <Icon name="close" />
                </button>
              </div>
            )
          })}
        </div>
        {active && (
          <MenuButton
            label={t('center.tabActions')}
            icon={<Icon name="ellipsis" />}
            className="tab-menu"
            testId="tab-menu"
            items={[
              {
                kind: 'item',
                label: t('command.closeTab'),
                onSelect: () => model.close(active.id),
                testId: 'tab-menu-close',
              },
              {
                kind: 'item',
                label: t('command.closeOthers'),
                onSelect: () => model.closeOthers(active.id),
                testId: 'tab-menu-close-others',
              },
              ...(active.kind === 'file' && active.preview
                ? [{ kind: 'item' as const, label: t('command.pinTab'), onSelect: () => model.pin(active.id) }]
                : []),
            ]}
          />
        )}
      </div>
      <div
        className="center-panel"
        id="center-panel"
        role={active ? 'tabpanel' : undefined}
        aria-labelledby={active ? `tab-${active.id}` : undefined}
      >
        {active ? (
          <Suspense fallback={<p className="viewer-note">{t('review.loading')}</p>}>{props.renderTab(active)}</Suspense>
        ) : (
          props.empty
        )}
      </div>
    </div>
  )
}
