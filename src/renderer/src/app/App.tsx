import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { DirEntry, ProjectSummary, ResultOf } from '../../../shared/protocol'
import { ChatPane } from '../features/chat'
import { FileViewer } from '../features/documents'
import { ReviewPane } from '../features/review'
import { Explorer, type ExplorerHandle } from '../features/explorer'
import { ProjectBar } from '../features/projects'
import { detectLocale, I18nContext, translator, type Locale } from '../i18n'
import type { ChannelStatus, RequestClient, RequestOutcome } from '../transport'
import { ClientContext } from './client-context'

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
  const [openFile, setOpenFile] = useState<string | null>(null)
  const [center, setCenter] = useState<'file' | 'review'>('file')
  const [reviewTurn, setReviewTurn] = useState<{ turnId: string | null; opened: number; commands: boolean }>({
    turnId: null,
    opened: 0,
    commands: false,
  })
  const [chatSession, setChatSession] = useState<string | null>(null)
  const explorer = useRef<ExplorerHandle>(null)
  const onReview = useCallback((turnId: string, commandsOnly = false) => {
    setReviewTurn((current) => ({ turnId, opened: current.opened + 1, commands: commandsOnly }))
    setCenter('review')
  }, [])

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
      client.onEvent((frame) => {
        if (frame.event === 'project.opened') refreshProjects()
      }),
    [client, refreshProjects],
  )

  const selectProject = useCallback((projectId: string) => {
    setCurrentId(projectId)
    setOpenFile(null)
  }, [])
  const onOpened = useCallback(
    (project: ProjectSummary) => {
      refreshProjects()
      selectProject(project.project_id)
    },
    [refreshProjects, selectProject],
  )
  const onOpenFile = useCallback((entry: DirEntry) => {
    setOpenFile(entry.path)
    setCenter('file')
  }, [])
  const onPathGone = useCallback(
    (path: string, movedTo: string | null) => setOpenFile((open) => (open === path ? movedTo : open)),
    [],
  )

  return (
    <I18nContext.Provider value={i18n}>
      <ClientContext.Provider value={client}>
        <div className="app">
          <ProjectBar
            projects={projects}
            currentId={currentId}
            canPickFolder={canPickFolder}
            onSelect={selectProject}
            onOpened={onOpened}
          />
          {status !== 'open' && (
            <p className="connection-banner" role="status">
              {status === 'connecting' ? t('app.connecting') : t('app.disconnected')}
            </p>
          )}
          {currentId === null ? (
            <main className="empty-state">
              <p>{t('project.none')}</p>
            </main>
          ) : (
            <main className="workspace" key={currentId}>
              <Explorer
                projectId={currentId}
                onOpenFile={onOpenFile}
                openPath={openFile}
                onPathGone={onPathGone}
                handle={explorer}
              />
              <div className="center">
                <div className="center-tabs" role="tablist">
                  <button type="button" role="tab" aria-selected={center === 'file'} onClick={() => setCenter('file')}>
                    {openFile ?? t('center.file')}
                  </button>
                  <button
                    type="button"
                    role="tab"
                    data-testid="tab-review"
                    aria-selected={center === 'review'}
                    onClick={() => setCenter('review')}
                  >
                    {t('center.review')}
                  </button>
                </div>
                {center === 'review' ? (
                  <ReviewPane
                    key={`${chatSession ?? ''}:${reviewTurn.opened}`}
                    projectId={currentId}
                    sessionId={chatSession}
                    initialTurnId={reviewTurn.turnId}
                    initialSource={reviewTurn.commands ? 'command' : null}
                    onOpenFile={(path) => {
                      setOpenFile(path)
                      setCenter('file')
                    }}
                    onReveal={(path) => explorer.current?.reveal(path)}
                  />
                ) : openFile === null ? (
                  <section className="viewer">
                    <p className="viewer-note">{t('viewer.empty')}</p>
                  </section>
                ) : (
                  <FileViewer key={openFile} projectId={currentId} path={openFile} />
                )}
              </div>
              <ChatPane projectId={currentId} onSessionChange={setChatSession} onReview={onReview} />
            </main>
          )}
        </div>
      </ClientContext.Provider>
    </I18nContext.Provider>
  )
}
