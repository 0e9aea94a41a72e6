import { z } from 'zod'
import { parentPath } from '../../../../shared/paths'
import type { ResultOf } from '../../../../shared/protocol'
import type { RequestClient, RequestOutcome } from '../../transport'
import type { TabsModel } from './tabs'

/**
 * What a window reopens after a reload or restart: its project, that project's file tabs (pinned or
 * preview), the active one and the editors' view states (Monaco's is plain JSON: scroll, cursor,
 * folding). Pane sizes and collapse are kept by the panel library under its own key (Layout.tsx).
 *
 * Stored in localStorage, which is per origin: the desktop app's `app://` origin is stable, so a
 * restart reopens the same window; in browser mode a restart on another port is another origin
 * and starts fresh. Two windows on one origin share the record; the last one to change wins.
 */
export const WINDOW_SESSION_KEY = 'retrace.window-session'
/** More tabs than this are not reopened (the most recently used are kept). */
export const MAX_RESTORED_TABS = 30
/** The whole record; beyond it the view states are dropped, and beyond that nothing is stored. */
export const MAX_SESSION_BYTES = 256 * 1024
/** One tab's view state; a larger one (an unexpected adapter state) is not kept. */
const MAX_VIEW_STATE_BYTES = 16 * 1024
/** Listing pages read per folder to confirm the files still exist (100 entries a page). */
const MAX_LISTING_PAGES = 20

const StoredPath = z.string().min(1).max(4096)
const WindowSessionSchema = z.object({
  version: z.literal(1),
  projectId: z.string().min(1).max(200),
  tabs: z.array(z.object({ path: StoredPath, pinned: z.boolean() })).max(MAX_RESTORED_TABS),
  activePath: StoredPath.nullable(),
  viewStates: z.record(StoredPath, z.unknown()),
})
export type WindowSession = z.infer<typeof WindowSessionSchema>

export type LoadedSession = { readonly kind: 'found'; readonly session: WindowSession } | { readonly kind: 'none' }

/** The stored record, or none when it is missing, too large, not JSON or not of the schema. */
export function loadWindowSession(storage: Pick<Storage, 'getItem'>): LoadedSession {
  let raw: string | null
  try {
    raw = storage.getItem(WINDOW_SESSION_KEY)
  } catch {
    return { kind: 'none' }
  }
  if (raw === null || raw.length > MAX_SESSION_BYTES) return { kind: 'none' }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { kind: 'none' }
  }
  const parsed = WindowSessionSchema.safeParse(json)
  return parsed.success ? { kind: 'found', session: parsed.data } : { kind: 'none' }
}

/** The record for a project's tabs now; the most recently used tabs first when there are too many. */
export function captureWindowSession(projectId: string, tabs: TabsModel): WindowSession {
  const state = tabs.state
  const files = state.tabs.flatMap((tab) => (tab.kind === 'file' ? [tab] : []))
  let kept = files
  if (files.length > MAX_RESTORED_TABS) {
    const rank = new Map(state.recent.map((id, index) => [id, index]))
    const recentFirst = [...files].sort(
      (a, b) => (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER),
    )
    const keptIds = new Set(recentFirst.slice(0, MAX_RESTORED_TABS).map((tab) => tab.id))
    kept = files.filter((tab) => keptIds.has(tab.id))
  }
  const viewStates: Record<string, unknown> = {}
  for (const tab of kept) {
    const view = tabs.viewState(tab.id)
    if (view === undefined) continue
    const json = toJson(view)
    if (json !== null && json.length <= MAX_VIEW_STATE_BYTES) viewStates[tab.path] = JSON.parse(json)
  }
  const active = kept.find((tab) => tab.id === state.activeId)
  return {
    version: 1,
    projectId,
    tabs: kept.map((tab) => ({ path: tab.path, pinned: !tab.preview })),
    activePath: active?.path ?? null,
    viewStates,
  }
}

/** Writes the record within the byte cap (view states go first); a full or refusing storage is ignored. */
export function storeWindowSession(storage: Pick<Storage, 'setItem'>, session: WindowSession): void {
  let json = JSON.stringify(session)
  if (json.length > MAX_SESSION_BYTES) json = JSON.stringify({ ...session, viewStates: {} })
  if (json.length > MAX_SESSION_BYTES) return
  try {
    storage.setItem(WINDOW_SESSION_KEY, json)
  } catch {
    // Quota or a browser that refuses storage: the window still works, it just starts fresh next time.
  }
}

/**
 * Reopens the stored tabs in a project's (still empty) tab model. A file that no longer exists is
 * dropped without a word: the person did not ask to open it now, and a tab that opens on an error
 * would only be closed by hand. A folder that cannot be listed (too large, unreadable) keeps its
 * tabs — the tab then says what is wrong, as when the person opens it.
 */
export async function restoreTabs(
  client: RequestClient,
  projectId: string,
  tabs: TabsModel,
  session: WindowSession,
  signal?: AbortSignal,
): Promise<void> {
  const folders = new Map<string, Set<string> | 'unknown'>()
  for (const tab of session.tabs) folders.set(parentPath(tab.path), 'unknown')
  await Promise.all(
    [...folders.keys()].map(async (folder) => {
      folders.set(folder, await listFolder(client, projectId, folder, signal))
    }),
  )
  if (signal?.aborted || tabs.state.tabs.length > 0) return
  const exists = (path: string) => {
    const listed = folders.get(parentPath(path))
    return listed === 'unknown' || listed === undefined || listed.has(path)
  }
  const kept = session.tabs.filter((tab) => exists(tab.path))
  tabs.restore(
    kept,
    session.activePath !== null && exists(session.activePath) ? session.activePath : null,
    (path) => session.viewStates[path],
  )
}

/** The file paths in a folder, `missing` as an empty set, or 'unknown' when it cannot be read in bounds. */
async function listFolder(
  client: RequestClient,
  projectId: string,
  folder: string,
  signal?: AbortSignal,
): Promise<Set<string> | 'unknown'> {
  const paths = new Set<string>()
  let cursor: string | null = null
  for (let page = 0; page < MAX_LISTING_PAGES; page++) {
    const outcome: RequestOutcome<ResultOf<'files.list'>> = await client.request(
      'files.list',
      cursor === null ? { path: folder } : { path: folder, cursor },
      {
        owner: { project_id: projectId },
        ...(signal ? { signal } : {}),
      },
    )
    if (outcome.kind === 'error') return outcome.error.code === 'NOT_FOUND' ? paths : 'unknown'
    if (outcome.kind !== 'ok') return 'unknown'
    for (const entry of outcome.result.entries) if (entry.kind !== 'dir') paths.add(entry.path)
    cursor = outcome.result.next_cursor
    if (cursor === null) return paths
  }
  return 'unknown'
}

function toJson(value: unknown): string | null {
  try {
    return JSON.stringify(value) ?? null
  } catch {
    return null
  }
}
