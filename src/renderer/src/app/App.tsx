import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { ProjectSummary, ResultOf } from '../../../shared/protocol'
import { ChatPane } from '../features/chat'
import { FileTab, releaseClosedDocuments } from '../features/documents'
import { dirtyPathsOf, watchReadCache } from '../features/drafts'
import { Explorer, gitStoreFor, type ExplorerHandle } from '../features/explorer'
import { ProjectSwitcher } from '../features/projects'
import { navigateChange, ReviewPane, reviewTurn } from '../features/review'
import { detectLocale, I18nContext, translator, useI18n, type Locale } from '../i18n'
import type { ChannelStatus, RequestClient, RequestOutcome } from '../transport'
import { useStore } from '../ui/store'
import { ClientContext, useClient } from './client-context'
import { useDesktopCommands } from './desktop-commands'
import { ActivityBar } from './workbench/ActivityBar'
import { CenterTabs } from './workbench/CenterTabs'
import { CommandPalette, type PaletteCommand } from './workbench/CommandPalette'
import { COMMANDS, commandForChord, type CommandId } from './workbench/commands'
import { chordOf, displayChord } from './workbench/keys'
import { Layout, type LayoutHandle } from './workbench/Layout'
import { ShortcutsHelp } from './workbench/ShortcutsHelp'
import { tabsFor, type Tab } from './workbench/tabs'
import { TitleBar } from './workbench/TitleBar'
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
  const [canPickFolder, setCanPickFolder] = useState(false)
  const [projects, setProjects] = useState<readonly ProjectSummary[]>([])
  const [currentId, setCurrentId] = useState<string | null>(null)
  const [chatSession, setChatSession] = useState<string | null>(null)
  const [palette, setPalette] = useState<'commands' | 'files' | null>(null)
  const [shortcuts, setShortcuts] = useState(false)
  const [settingsRequest, setSettingsRequest] = useState(0)
  const [openFolderRequest, setOpenFolderRequest] = useState(0)
  const explorer = useRef<ExplorerHandle>(null)
  const layout = useRef<LayoutHandle>(null)
  const tabs = currentId === null ? null : tabsFor(currentId)

  const applyProjects = useCallback((outcome: RequestOutcome<ResultOf<'project.list'>>) => {
    if (outcome.kind !== 'ok') return
    setProjects(outcome.result.projects)
    setCurrentId((current) => current ?? outcome.result.projects[0]?.project_id ?? null)
  }, [])
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
  useEffect(
    () =>
      client.on('project.opened', () => refreshProjects()),
    [client, refreshProjects],
  )
  const opened = useRef(false)
  useEffect(() => {
    if (tabs && initialOpen && !opened.current) {
      opened.current = true
      tabs.openFile(initialOpen, { pinned: true })
    }
  }, [tabs])

  const openFile = useCallback(
    (path: string, pinned = true) => {
      tabs?.openFile(path, { pinned })
    },
    [tabs],
  )
  const reveal = useCallback((path: string) => {
    layout.current?.show('explorer')
    explorer.current?.reveal(path)
  }, [])
  const openReview = useCallback(
    (turnId?: string, path?: string, source: 'command' | null = null) => {
      if (currentId === null) return
      if (turnId) reviewTurn(currentId, turnId, path ?? null, source)
      tabs?.openReview()
    },
    [currentId, tabs],
  )

  const run = useCallback(
    (id: CommandId) => {
      const activeId = tabs?.state.activeId ?? null
      switch (id) {
        case 'palette.commands':
          setPalette('commands')
          break
        case 'palette.files':
          setPalette('files')
          break
        case 'help.shortcuts':
          setShortcuts(true)
          break
        case 'layout.toggleExplorer':
          layout.current?.toggle('explorer')
          break
        case 'layout.toggleChat':
          layout.current?.toggle('chat')
          break
        case 'focus.explorer':
          layout.current?.show('explorer')
          requestAnimationFrame(() => explorer.current?.focus())
          break
        case 'focus.chat':
          layout.current?.show('chat')
          requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="composer-input"]')?.focus())
          break
        case 'review.open':
          openReview()
          break
        case 'tabs.close':
          if (activeId) tabs?.close(activeId)
          break
        case 'tabs.closeOthers':
          if (activeId) tabs?.closeOthers(activeId)
          break
        case 'tabs.next':
          tabs?.cycle(1)
          break
        case 'tabs.previous':
          tabs?.cycle(-1)
          break
        case 'tabs.pin':
          if (activeId) tabs?.pin(activeId)
          break
        case 'review.nextChange':
          navigateChange(1)
          break
        case 'review.previousChange':
          navigateChange(-1)
          break
        case 'project.open':
          setOpenFolderRequest((n) => n + 1)
          break
        case 'settings.open':
          layout.current?.show('chat')
          setSettingsRequest((n) => n + 1)
          break
      }
    },
    [tabs, openReview],
  )

  // One keyboard handler for the window, before any widget (Monaco included) sees the keys.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const chord = chordOf(event)
      const command = chord ? commandForChord(chord) : undefined
      if (!command) return
      event.preventDefault()
      event.stopPropagation()
      run(command.id)
    }
    window.addEventListener('keydown', onKeyDown, { capture: true })
    return () => window.removeEventListener('keydown', onKeyDown, { capture: true })
  }, [run])

  const paletteCommands: PaletteCommand[] = useMemo(
    () =>
      COMMANDS.filter((command) => command.inPalette).map((command) => ({
        id: command.id,
        title: t(command.title),
        shortcut: command.keys[0] ? displayChord(command.keys[0]) : null,
        run: () => run(command.id),
      })),
    [t, run],
  )

  const selectProject = useCallback((projectId: string) => {
    setCurrentId(projectId)
    setChatSession(null)
  }, [])
  // A folder the desktop shell opened (Open Recent, a second launch, a file opened with Retrace).
  useDesktopCommands({
    run,
    showProject: (projectId, open) => {
      refreshProjects()
      if (projectId !== currentId) selectProject(projectId)
      // The project's tabs live outside React, so the file opens whether or not it is shown yet.
      if (open !== null) tabsFor(projectId).openFile(open, { pinned: true })
    },
  })
  const onOpened = useCallback(
    (project: ProjectSummary) => {
      refreshProjects()
      selectProject(project.project_id)
    },
    [refreshProjects, selectProject],
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
                onSelect={selectProject}
                onOpened={onOpened}
                openRequest={openFolderRequest}
              />
            }
            onQuickOpen={() => setPalette('files')}
            onPalette={() => setPalette('commands')}
            onShortcuts={() => setShortcuts(true)}
            onSettings={() => run('settings.open')}
          />
          {status !== 'open' && (
            <p className="connection-banner" role="status">
              {status === 'connecting' ? t('app.connecting') : t('app.disconnected')}
            </p>
          )}
          {currentId === null || tabs === null ? (
            <main className="empty-state">
              <p>{t('project.none')}</p>
            </main>
          ) : (
            <main className="workspace" key={currentId}>
              <Workspace
                projectId={currentId}
                tabs={tabs}
                layout={layout}
                explorer={explorer}
                sessionId={chatSession}
                onSessionChange={setChatSession}
                openFile={openFile}
                reveal={reveal}
                openReview={openReview}
                run={run}
                settingsRequest={settingsRequest}
                isGit={projects.find((p) => p.project_id === currentId)?.is_git === true}
                onSwitchProject={(projectId) => {
                  refreshProjects()
                  selectProject(projectId)
                }}
              />
            </main>
          )}
          {palette !== null && (
            <CommandPalette
              client={client}
              projectId={currentId}
              initial={palette}
              commands={paletteCommands}
              onOpenFile={(path) => openFile(path, true)}
              onClose={() => setPalette(null)}
            />
          )}
          {shortcuts && <ShortcutsHelp onClose={() => setShortcuts(false)} />}
        </div>
      </ClientContext.Provider>
    </I18nContext.Provider>
  )
}

function Workspace(props: {
  projectId: string
  tabs: ReturnType<typeof tabsFor>
  layout: React.RefObject<LayoutHandle | null>
  explorer: React.RefObject<ExplorerHandle | null>
  sessionId: string | null
  onSessionChange: (sessionId: string | null) => void
  openFile: (path: string, pinned?: boolean) => void
  reveal: (path: string) => void
  openReview: (turnId?: string, path?: string, source?: 'command' | null) => void
  run: (id: CommandId) => void
  settingsRequest: number
  isGit: boolean
  onSwitchProject: (projectId: string) => void
}) {
  const client = useClient()
  const { projectId, tabs } = props
  const git = useStore(gitStoreFor(client, projectId).store)
  const dirty = useStore(dirtyPathsOf(projectId))
  useEffect(() => watchReadCache(client, projectId), [client, projectId])
  const reviewActive = useStore(tabs.store, (s) => s.activeId === 'review')
  // Editors kept across tab switches (the bitmap editor) are released when their tab closes.
  const openPaths = useStore(tabs.store, (s) =>
    s.tabs.flatMap((tab) => (tab.kind === 'file' ? [tab.path] : [])).join('\u0000'),
  )
  useEffect(() => releaseClosedDocuments(projectId, new Set(openPaths.split('\u0000'))), [projectId, openPaths])
  const renderTab = (tab: Tab) =>
    tab.kind === 'review' ? (
      <ReviewPane
        projectId={projectId}
        sessionId={props.sessionId}
        onOpenFile={(path) => props.openFile(path)}
        onReveal={props.reveal}
      />
    ) : (
      <FileTab
        key={tab.path}
        projectId={projectId}
        path={tab.path}
        viewState={tabs.viewState(tab.id)}
        onViewState={(view) => tabs.saveViewState(tab.id, view)}
        onReveal={props.reveal}
        onOpenFile={(path) => props.openFile(path)}
      />
    )
  return (
    <Layout
      handle={props.layout}
      activityBar={<ActivityBar run={props.run} reviewActive={reviewActive} />}
      explorer={
        <Explorer
          projectId={projectId}
          onOpenFile={(entry, pinned) => {
            props.openFile(entry.path, pinned)
            props.layout.current?.dismissDrawer('explorer')
          }}
          onPathGone={(path, movedTo) => tabs.pathGone(path, movedTo)}
          handle={props.explorer}
        />
      }
      center={
        <CenterTabs
          tabs={tabs}
          gitState={(path) => git.files.get(path)}
          isDirty={(path) => dirty.has(path)}
          renderTab={renderTab}
          empty={<Welcome />}
        />
      }
      chat={
        <ChatPane
          projectId={projectId}
          onSessionChange={props.onSessionChange}
          onReview={props.openReview}
          onReviewCommands={(turnId) => props.openReview(turnId, undefined, 'command')}
          onOpenFile={(path) => props.openFile(path)}
          settingsRequest={props.settingsRequest}
          isGit={props.isGit}
          onSwitchProject={props.onSwitchProject}
        />
      }
    />
  )
}

function Welcome() {
  const { t } = useI18n()
  return (
    <section className="welcome" aria-label={t('welcome.title')}>
      <h2>{t('welcome.title')}</h2>
      <dl className="welcome-keys">
        {(
          ['palette.files', 'palette.commands', 'layout.toggleExplorer', 'layout.toggleChat', 'help.shortcuts'] as const
        ).map((id) => {
          const command = COMMANDS.find((c) => c.id === id)
          if (!command) return null
          return (
            <div key={id}>
              <dt>{t(command.title)}</dt>
              <dd>
                <kbd>{displayChord(command.keys[0] ?? '')}</kbd>
              </dd>
            </div>
          )
        })}
      </dl>
    </section>
  )
}
