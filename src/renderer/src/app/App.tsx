import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import { flushSync } from 'react-dom'
import type { ResultOf } from '../../../shared/protocol'
import { ChatPane } from '../features/chat'
import { FileTab, workingCopiesSlot } from '../features/documents'
import { Explorer, gitStoreSlot, revealInExplorer } from '../features/explorer'
import { ProjectSwitcher } from '../features/projects'
import { ReviewPane, reviewTurn } from '../features/review'
import { openMatch, SearchSideBar } from '../features/search'
import { detectLocale, I18nContext, translator, useI18n, type Locale } from '../i18n'
import type { ChannelStatus, RequestClient, RequestOutcome } from '../transport'
import type { CommandRegistry } from '../ui/commands'
import { ProjectScopeContext } from '../ui/project-scope'
import { documentViewRequests } from '../ui/document-requests'
import { useStore } from '../ui/store'
import { ClientContext } from '../ui/client-context'
import { registerCommands } from './commands'
import { useDesktopCommands } from './desktop-commands'
import { ActivityBar } from './workbench/ActivityBar'
import { CenterTabs } from './workbench/CenterTabs'
import { CommandPalette, type PaletteCommand } from './workbench/CommandPalette'
import { dispatchKey, displayChord } from './workbench/keys'
import { Layout } from './workbench/Layout'
import type { ProjectScope } from './workbench/project-scope'
import { captureWindowSession, loadWindowSession, restoreTabs, storeWindowSession } from './workbench/session-restore'
import { ShortcutsHelp } from './workbench/ShortcutsHelp'
import type { Tab } from './workbench/tabs'
import { TitleBar } from './workbench/TitleBar'
import { Workbench } from './workbench/workbench'
import '../ui/base.css'

/** `open=<root-relative path>` next to the token (or `--open` in browser mode) opens a file at start. */
const initialOpen = new URL(window.location.href).searchParams.get('open')

export function App(props: { client: RequestClient }) {
  const { client } = props
  const [locale, setLocale] = useState<Locale>(() => detectLocale(navigator.languages))
  const i18n = useMemo(() => ({ locale, t: translator(locale), setLocale }), [locale])
  const { t } = i18n
  const status: ChannelStatus = useSyncExternalStore(
    useCallback((onChange: () => void) => client.onStatus(onChange), [client]),
    () => client.status,
  )
  // The window's state lives in the workbench, outside React: App renders it and wires the client.
  const [restored] = useState(() => loadWindowSession(localStorage))
  const [workbench] = useState(() => {
    const created = new Workbench(client, restored.kind === 'found' ? restored.session.projectId : null)
    registerCommands(created)
    return created
  })
  const [canPickFolder, setCanPickFolder] = useState(false)
  const { list: projects, currentId } = useStore(workbench.projects)
  const overlay = useStore(workbench.overlay)

  const applyProjects = useCallback(
    (outcome: RequestOutcome<ResultOf<'project.list'>>) => {
      if (outcome.kind === 'ok') workbench.setProjects(outcome.result.projects)
    },
    [workbench],
  )
  const refreshProjects = useCallback(
    () => void client.request('project.list', {}).then(applyProjects),
    [client, applyProjects],
  )

  useEffect(() => {
    document.documentElement.lang = locale
    document.title = t('app.title')
  }, [locale, t])
  useEffect(() => {
    if (status !== 'open') return
    void client.request('app.info', {}).then((outcome) => {
      if (outcome.kind === 'ok') setCanPickFolder(outcome.result.can_pick_folder)
    })
    void client.request('project.list', {}).then(applyProjects)
  }, [client, status, applyProjects])
  useEffect(() => client.on('project.opened', () => refreshProjects()), [client, refreshProjects])
  // The first project shown gets the last window's tabs back, then `open=` (which wins the active tab).
  // Saving starts only after that, so the empty model of a loading window never overwrites the record.
  const opened = useRef(false)
  const [persisting, setPersisting] = useState(false)
  useEffect(() => {
    if (currentId === null || opened.current) return
    opened.current = true
    const { tabs } = workbench.scopeFor(currentId)
    const session = restored.kind === 'found' && restored.session.projectId === currentId ? restored.session : null
    void (session ? restoreTabs(client, currentId, tabs, session) : Promise.resolve()).finally(() => {
      if (initialOpen) tabs.openFile(initialOpen, { pinned: true })
      setPersisting(true)
    })
  }, [workbench, client, currentId, restored])
  useEffect(() => {
    if (!persisting || currentId === null) return
    const { tabs } = workbench.scopeFor(currentId)
    const save = () => storeWindowSession(localStorage, captureWindowSession(currentId, tabs))
    save()
    return tabs.store.subscribe(save)
  }, [workbench, currentId, persisting])
  // An open editor hands its view state (scroll, cursor) to the tab model only when it unmounts, so
  // a page that is going away unmounts the workspace synchronously before the last save.
  const [leaving, setLeaving] = useState(false)
  useEffect(() => {
    const onPageHide = () => {
      const scope = workbench.currentScope()
      if (!persisting || scope === null) return
      flushSync(() => setLeaving(true))
      storeWindowSession(localStorage, captureWindowSession(scope.projectId, scope.tabs))
    }
    // Back from the back-forward cache: the same page shows its workspace again.
    const onPageShow = () => setLeaving(false)
    window.addEventListener('pagehide', onPageHide)
    window.addEventListener('pageshow', onPageShow)
    return () => {
      window.removeEventListener('pagehide', onPageHide)
      window.removeEventListener('pageshow', onPageShow)
    }
  }, [workbench, persisting])

  // One keyboard handler for the window, before any widget (Monaco included) sees the keys.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => void dispatchKey(workbench.commands, event, workbench.context())
    window.addEventListener('keydown', onKeyDown, { capture: true })
    return () => window.removeEventListener('keydown', onKeyDown, { capture: true })
  }, [workbench])

  const registered = useStore(workbench.commands.store)
  const paletteCommands: PaletteCommand[] = useMemo(
    () =>
      registered
        .filter((command) => command.inPalette !== false)
        .map((command) => ({
          id: command.id,
          title: t(command.title),
          shortcut: command.keybindings?.[0] ? displayChord(command.keybindings[0]) : null,
          run: () => workbench.run(command.id),
        })),
    [t, registered, workbench],
  )

  // A folder the desktop shell opened (Open Recent, a second launch, a file opened with Retrace).
  useDesktopCommands({
    run: (id) => workbench.run(id),
    showProject: (projectId, open) => {
      refreshProjects()
      workbench.selectProject(projectId)
      // The project's tabs live outside React, so the file opens whether or not it is shown yet.
      if (open !== null) workbench.scopeFor(projectId).tabs.openFile(open, { pinned: true })
    },
  })
  const showProject = useCallback(
    (projectId: string) => {
      refreshProjects()
      workbench.selectProject(projectId)
    },
    [refreshProjects, workbench],
  )

  return (
    <I18nContext.Provider value={i18n}>
      <ClientContext.Provider value={client}>
        <div className="app">
          <TitleBar
            switcher={
              <ProjectSwitcher
                projects={projects}
                currentId={currentId}
                canPickFolder={canPickFolder}
                onSelect={(projectId) => workbench.selectProject(projectId)}
                onOpened={(project) => showProject(project.project_id)}
              />
            }
            onQuickOpen={() => workbench.run('palette.files')}
            onPalette={() => workbench.run('palette.commands')}
            onShortcuts={() => workbench.run('help.shortcuts')}
            onSettings={() => workbench.run('settings.open')}
          />
          {status !== 'open' && (
            <p className="connection-banner" role="status">
              {status === 'connecting' ? t('app.connecting') : t('app.disconnected')}
            </p>
          )}
          {leaving ? null : currentId === null ? (
            <main className="empty-state">
              <p>{t('project.none')}</p>
            </main>
          ) : (
            <main className="workspace" key={currentId}>
              <ProjectScopeContext.Provider value={workbench.scopeFor(currentId)}>
                <Workspace
                  workbench={workbench}
                  scope={workbench.scopeFor(currentId)}
                  isGit={projects.find((p) => p.project_id === currentId)?.is_git === true}
                  onSwitchProject={showProject}
                />
              </ProjectScopeContext.Provider>
            </main>
          )}
          {overlay.kind === 'palette' && (
            <CommandPalette
              client={client}
              projectId={currentId}
              initial={overlay.mode}
              commands={paletteCommands}
              onOpenFile={(path) => workbench.openFile(path, true)}
              onClose={() => workbench.closeOverlay()}
            />
          )}
          {overlay.kind === 'shortcuts' && (
            <ShortcutsHelp commands={workbench.commands} onClose={() => workbench.closeOverlay()} />
          )}
        </div>
      </ClientContext.Provider>
    </I18nContext.Provider>
  )
}

function Workspace(props: {
  workbench: Workbench
  scope: ProjectScope
  isGit: boolean
  onSwitchProject: (projectId: string) => void
}) {
  const { workbench, scope } = props
  const { projectId, tabs } = scope
  const git = useStore(scope.get(gitStoreSlot).store)
  const workingCopies = scope.get(workingCopiesSlot)
  const dirty = useStore(workingCopies.dirty)
  const sessionId = useStore(workbench.chatSession)
  useEffect(() => workingCopies.watch(), [workingCopies])
  const reviewActive = useStore(tabs.store, (s) => s.activeId === 'review')
  // Working copies and the editors kept across tab switches are released when their tab closes.
  const openPaths = useStore(tabs.store, (s) =>
    s.tabs.flatMap((tab) => (tab.kind === 'file' ? [tab.path] : [])).join('\u0000'),
  )
  useEffect(() => workingCopies.releaseClosed(new Set(openPaths.split('\u0000'))), [workingCopies, openPaths])
  const openFile = (path: string, pinned = true) => tabs.openFile(path, { pinned })
  const reveal = (path: string) => revealInExplorer(workbench.context(), path)
  // Review opens a file at a place (a PDF annotation's page): a tab that mounts restores the state
  // from the tab model, one already on screen is asked to move (as a search match does).
  const openFileAt = (path: string, viewState?: unknown) => {
    openFile(path)
    const id = tabs.state.activeId
    if (viewState === undefined || id === null) return
    tabs.saveViewState(id, viewState)
    documentViewRequests.emit({ projectId, path, viewState })
  }
  const openReview = (turnId?: string, path?: string, source: 'command' | null = null) => {
    if (turnId) reviewTurn(scope, turnId, path ?? null, source)
    tabs.openReview()
  }
  const onSessionChange = useCallback((id: string | null) => workbench.chatSession.set(id), [workbench])
  const renderTab = (tab: Tab) =>
    tab.kind === 'review' ? (
      <ReviewPane projectId={projectId} sessionId={sessionId} onOpenFile={openFileAt} onReveal={reveal} />
    ) : (
      <FileTab
        key={tab.path}
        workingCopies={workingCopies}
        path={tab.path}
        viewState={tabs.viewState(tab.id)}
        onViewState={(view) => tabs.saveViewState(tab.id, view)}
        onReveal={reveal}
        onOpenFile={(path) => openFile(path)}
      />
    )
  return (
    <Layout
      handle={workbench.layout}
      activityBar={<ActivityBar workbench={workbench} reviewActive={reviewActive} />}
      explorer={
        <SearchSideBar
          projectId={projectId}
          onOpenMatch={(match) => {
            openMatch(tabs, projectId, match)
            workbench.layout.current?.dismissDrawer('explorer')
          }}
        >
          <Explorer
            projectId={projectId}
            onOpenFile={(entry, pinned) => {
              openFile(entry.path, pinned)
              workbench.layout.current?.dismissDrawer('explorer')
            }}
            onPathGone={(path, movedTo) => tabs.pathGone(path, movedTo)}
          />
        </SearchSideBar>
      }
      center={
        <CenterTabs
          tabs={tabs}
          gitState={(path) => git.files.get(path)}
          isDirty={(path) => dirty.has(path)}
          renderTab={renderTab}
          empty={<Welcome commands={workbench.commands} />}
        />
      }
      chat={
        <ChatPane
          projectId={projectId}
          onSessionChange={onSessionChange}
          onReview={openReview}
          onReviewCommands={(turnId) => openReview(turnId, undefined, 'command')}
          onOpenFile={(path) => openFile(path)}
          isGit={props.isGit}
          onSwitchProject={props.onSwitchProject}
        />
      }
    />
  )
}

function Welcome(props: { commands: CommandRegistry }) {
  const { t } = useI18n()
  return (
    <section className="welcome" aria-label={t('welcome.title')}>
      <h2>{t('welcome.title')}</h2>
      <dl className="welcome-keys">
        {(
          ['palette.files', 'palette.commands', 'layout.toggleExplorer', 'layout.toggleChat', 'help.shortcuts'] as const
        ).map((id) => {
          const command = props.commands.get(id)
          if (!command) return null
          return (
            <div key={id}>
              <dt>{t(command.title)}</dt>
              <dd>
                <kbd>{displayChord(command.keybindings?.[0] ?? '')}</kbd>
              </dd>
            </div>
          )
        })}
      </dl>
    </section>
  )
}
