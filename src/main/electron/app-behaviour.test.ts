import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MenuItemConstructorOptions } from 'electron'
import { describe, expect, test, vi } from 'vitest'
import { MENU_COMMANDS } from '../../shared/app-command'
import { tempDir } from '../../../test/support/temp'

// The real package would try to download the Electron binary; these modules only need its types.
vi.mock('electron', () => ({}))

const { launchPaths, resolveLaunchTarget, windowUrl } = await import('./launch')
const { captureWindowState, initialBounds, parseDesktopState, readDesktopState, toggledTheme, writeDesktopState } =
  await import('./desktop-state')
const { menuTemplate, RECENT_LIMIT } = await import('./menu')
const { menuLabels } = await import('./menu-labels')
const { createQuitGuard, needsConfirmation } = await import('./quit')
const { InFlightWrites, isMutatingRequest } = await import('./activity')
const { runningTurns, stopTurn } = await import('./shell-requests')

describe('launch arguments', () => {
  test('paths follow the executable (and the app path when unpackaged); switches are not paths', () => {
    expect(launchPaths(['/opt/Retrace/retrace', '/home/me/project'], { defaultApp: false })).toEqual([
      '/home/me/project',
    ])
    expect(launchPaths(['electron', '.', 'notes.md'], { defaultApp: true })).toEqual(['notes.md'])
    expect(
      launchPaths(['retrace.exe', '--allow-file-access-from-files', '-psn_0_1234', 'C:\\work\\a.pdf'], {
        defaultApp: false,
      }),
    ).toEqual(['C:\\work\\a.pdf'])
    expect(launchPaths(['retrace'], { defaultApp: false })).toEqual([])
  })

  test('a folder opens as itself; a file opens in the innermost known project, else its git root, else its folder', async () => {
    // Real path: the temp folder may sit behind a symlink (/tmp → /private/tmp on macOS).
    const home = realpathSync(tempDir())
    mkdirSync(join(home, 'repo', '.git'), { recursive: true })
    mkdirSync(join(home, 'repo', 'docs', 'guide'), { recursive: true })
    writeFileSync(join(home, 'repo', 'docs', 'guide', 'intro.md'), '# Intro\n')
    mkdirSync(join(home, 'loose'))
    writeFileSync(join(home, 'loose', 'paper.pdf'), '%PDF-1.7\n')

    expect(await resolveLaunchTarget(join(home, 'repo'), '/', [])).toEqual({
      kind: 'open',
      folder: join(home, 'repo'),
      open: null,
    })
    // Relative to the launching shell's working directory.
    expect(await resolveLaunchTarget('docs/guide/intro.md', join(home, 'repo'), [])).toEqual({
      kind: 'open',
      folder: join(home, 'repo'),
      open: 'docs/guide/intro.md',
    })
    // A project Retrace already knows inside the repository wins (the innermost one).
    expect(
      await resolveLaunchTarget(join(home, 'repo', 'docs', 'guide', 'intro.md'), '/', [
        join(home, 'repo'),
        join(home, 'repo', 'docs'),
      ]),
    ).toEqual({ kind: 'open', folder: join(home, 'repo', 'docs'), open: 'guide/intro.md' })
    expect(await resolveLaunchTarget(join(home, 'loose', 'paper.pdf'), '/', [])).toEqual({
      kind: 'open',
      folder: join(home, 'loose'),
      open: 'paper.pdf',
    })
    expect(await resolveLaunchTarget(join(home, 'gone.md'), '/', [])).toEqual({
      kind: 'missing',
      path: join(home, 'gone.md'),
    })
  })

  test('the file rides in the window address as open=, the route browser mode uses', () => {
    expect(windowUrl('app://retrace/index.html', null)).toBe('app://retrace/index.html')
    const url = new URL(windowUrl('app://retrace/index.html', 'docs/a b&c.pdf'))
    expect(url.searchParams.get('open')).toBe('docs/a b&c.pdf')
    expect(new URL(windowUrl('http://localhost:5173/', 'x.md')).searchParams.get('open')).toBe('x.md')
  })
})

describe('window state', () => {
  const display = { x: 0, y: 0, width: 1920, height: 1080 }
  const saved = (bounds: { x: number; y: number; width: number; height: number } | null, maximized = false) => ({
    bounds,
    maximized,
    fullScreen: false,
  })

  test('reopens where it was when that place is still on a display, fitted to it', () => {
    expect(initialBounds(saved({ x: 100, y: 80, width: 1000, height: 700 }), [display])).toEqual({
      x: 100,
      y: 80,
      width: 1000,
      height: 700,
    })
    // Larger than the display it is on now (a smaller monitor): shrunk to fit and pulled inside.
    expect(initialBounds(saved({ x: 1800, y: 900, width: 3000, height: 2000 }), [display])).toEqual({
      x: 0,
      y: 0,
      width: 1920,
      height: 1080,
    })
    // On a second monitor to the right.
    const right = { x: 1920, y: 0, width: 1280, height: 1024 }
    expect(initialBounds(saved({ x: 2000, y: 50, width: 800, height: 600 }), [display, right])).toMatchObject({
      x: 2000,
    })
  })

  test('a window whose monitor is gone, or that was never placed, opens centred at the default size', () => {
    expect(initialBounds(saved({ x: 4000, y: 100, width: 800, height: 600 }), [display])).toEqual({
      width: 1280,
      height: 820,
    })
    // A sliver left on screen is not enough to grab the title bar.
    expect(initialBounds(saved({ x: 1850, y: 100, width: 800, height: 600 }), [display])).toEqual({
      width: 1280,
      height: 820,
    })
    expect(initialBounds(saved(null), [{ x: 0, y: 0, width: 1024, height: 700 }])).toEqual({
      width: 1024,
      height: 700,
    })
  })

  test('a maximised window keeps its normal bounds, so un-maximising after a restart lands right', () => {
    const state = captureWindowState({
      getNormalBounds: () => ({ x: 10.4, y: 20, width: 900, height: 600 }),
      isMaximized: () => true,
      isFullScreen: () => false,
    })
    expect(state).toEqual({ bounds: { x: 10, y: 20, width: 900, height: 600 }, maximized: true, fullScreen: false })
  })

  test('is stored privately, replaced whole, and a damaged file falls back to the defaults', () => {
    const dir = tempDir()
    expect(readDesktopState(dir)).toEqual({
      window: { bounds: null, maximized: false, fullScreen: false },
      theme: 'system',
    })
    const state = { window: saved({ x: 1, y: 2, width: 800, height: 500 }, true), theme: 'dark' as const }
    writeDesktopState(dir, state)
    expect(readDesktopState(dir)).toEqual(state)
    expect(statSync(join(dir, 'desktop-state.json')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'desktop-state.json'), 'utf8')).not.toContain('tmp')
    expect(parseDesktopState('{"window": {"bounds": "nope"}}').window.bounds).toBeNull()
    expect(parseDesktopState('not json').theme).toBe('system')
  })

  test('Dark Mode toggles between explicit light and dark from what shows now', () => {
    expect(toggledTheme(true)).toBe('light')
    expect(toggledTheme(false)).toBe('dark')
  })
})

describe('application menu', () => {
  const actions = () => ({
    run: vi.fn(),
    openRecent: vi.fn(),
    toggleDarkMode: vi.fn(),
    openDataFolder: vi.fn(),
  })
  const build = (platform: NodeJS.Platform, overrides: Partial<Parameters<typeof menuTemplate>[0]> = {}) => {
    const spy = actions()
    const template = menuTemplate({
      platform,
      labels: menuLabels(['en-US']),
      recent: [{ name: 'site', root: '/home/me/site' }],
      darkMode: false,
      development: false,
      actions: spy,
      ...overrides,
    })
    return { template, spy }
  }
  const submenu = (item: MenuItemConstructorOptions | undefined) =>
    (item?.submenu ?? []) as MenuItemConstructorOptions[]
  const find = (items: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions | undefined => {
    for (const item of items) {
      if (item.id === id) return item
      const inner = find(submenu(item), id)
      if (inner) return inner
    }
    return undefined
  }
  const click = (item: MenuItemConstructorOptions | undefined) =>
    (item?.click as (() => void) | undefined)?.call(undefined)

  test('File, Edit, View, Window, Help — with the app menu first on macOS', () => {
    expect(build('linux').template.map((m) => m.label)).toEqual(['File', 'Edit', 'View', 'Window', 'Help'])
    expect(build('darwin').template.map((m) => m.label)).toEqual(['Retrace', 'File', 'Edit', 'View', 'Window', 'Help'])
    const roles = (items: MenuItemConstructorOptions[]) => items.map((i) => i.role).filter(Boolean)
    const [file, edit, view, window, help] = build('win32').template
    expect(submenu(file).map((i) => i.id ?? i.role ?? i.type)).toEqual([
      'project.open',
      'recent',
      'separator',
      'tabs.close',
      'separator',
      'settings.open',
      'separator',
      'quit',
    ])
    expect(roles(submenu(edit))).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'delete', 'selectAll'])
    expect(roles(submenu(view))).toEqual(['resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen'])
    // Ctrl+= / Ctrl+- / Ctrl+0 reach the page, where the PDF and image views zoom the document.
    const zoomItems = submenu(view).filter((item) => ['resetZoom', 'zoomIn', 'zoomOut'].includes(item.role ?? ''))
    expect(zoomItems.map((item) => item.registerAccelerator)).toEqual([false, false, false])
    expect(window?.role).toBe('windowMenu')
    expect(submenu(help).map((i) => i.id ?? i.role ?? i.type)).toEqual([
      'help.shortcuts',
      'separator',
      'help.dataFolder',
      'separator',
      'about',
    ])
    // macOS: Quit, Settings and About live in the app menu; Paste and Match Style in Edit.
    const mac = build('darwin').template
    expect(roles(submenu(mac[0]))).toEqual(expect.arrayContaining(['about', 'hide', 'quit']))
    expect(submenu(mac[1]).some((i) => i.role === 'quit')).toBe(false)
    expect(roles(submenu(mac[2]))).toContain('pasteAndMatchStyle')
    expect(find(build('linux', { development: true }).template, 'toggleDevTools')).toBeUndefined()
    expect(submenu(build('linux', { development: true }).template[2]).some((i) => i.role === 'toggleDevTools')).toBe(
      true,
    )
  })

  test('window items run the workbench command; shortcuts the window handles are shown, not registered', () => {
    const { template, spy } = build('linux')
    for (const id of Object.keys(MENU_COMMANDS) as (keyof typeof MENU_COMMANDS)[]) {
      const item = find(template, id)
      expect(item, id).toBeDefined()
      expect(item?.accelerator).toBe(MENU_COMMANDS[id].accelerator)
      expect(item?.registerAccelerator).toBe(MENU_COMMANDS[id].registered)
      click(item)
      expect(spy.run).toHaveBeenLastCalledWith(id)
    }
    // Close Tab's Ctrl+W is the window's: a registered accelerator would close two tabs.
    expect(find(template, 'tabs.close')?.registerAccelerator).toBe(false)
  })

  test('Open Recent lists recent folders (at most ten) and opens the one chosen', () => {
    const recent = Array.from({ length: 12 }, (_, i) => ({ name: `p${i}`, root: `/w/p${i}` }))
    const { template, spy } = build('linux', { recent: [{ name: 'R&D', root: '/w/R&D' }, ...recent] })
    const items = submenu(find(template, 'recent'))
    expect(items).toHaveLength(RECENT_LIMIT)
    expect(items[0]?.label).toBe('R&&D — /w/R&&D')
    click(items[1])
    expect(spy.openRecent).toHaveBeenCalledWith('/w/p0')
    const none = submenu(find(build('linux', { recent: [] }).template, 'recent'))
    expect(none).toEqual([expect.objectContaining({ enabled: false, label: 'No Recent Folders' })])
  })

  test('Dark Mode is a checkbox showing the current look; Open Data Folder is in Help', () => {
    const { template, spy } = build('linux', { darkMode: true })
    const dark = find(template, 'view.darkMode')
    expect(dark).toMatchObject({ type: 'checkbox', checked: true })
    click(dark)
    expect(spy.toggleDarkMode).toHaveBeenCalled()
    click(find(template, 'help.dataFolder'))
    expect(spy.openDataFolder).toHaveBeenCalled()
  })

  test('follows the system language like the renderer (English, 简体中文)', () => {
    expect(menuLabels(['zh-CN', 'en']).file).toBe('文件')
    expect(menuLabels(['zh-Hans-CN']).openRecent).toBe('最近打开')
    expect(menuLabels(['de-DE', 'en-US']).file).toBe('File')
    expect(Object.keys(menuLabels(['zh'])).sort()).toEqual(Object.keys(menuLabels(['en'])).sort())
  })
})

describe('quitting', () => {
  test('asks only while a turn or a save is in flight, and never on an OS shutdown', () => {
    expect(needsConfirmation({ turns: 0, saves: 0 }, 'user')).toBe(false)
    expect(needsConfirmation({ turns: 1, saves: 0 }, 'user')).toBe(true)
    expect(needsConfirmation({ turns: 0, saves: 2 }, 'user')).toBe(true)
    expect(needsConfirmation({ turns: 3, saves: 1 }, 'shutdown')).toBe(false)
  })

  function guardWith(activity: { turns: number; saves: number }, answer: boolean | Promise<boolean>) {
    const calls: string[] = []
    const guard = createQuitGuard({
      activity: async () => activity,
      confirm: async () => {
        calls.push('confirm')
        return answer
      },
      stopWork: async (reason) => {
        calls.push(`stop:${reason}`)
      },
      quit: () => calls.push('quit'),
    })
    return { guard, calls }
  }

  test('nothing running: quits at once, after stopping cleanly', async () => {
    const { guard, calls } = guardWith({ turns: 0, saves: 0 }, false)
    expect(guard.allowsQuit).toBe(false)
    expect(await guard.request('user')).toBe('quit')
    expect(calls).toEqual(['stop:user', 'quit'])
    expect(guard.allowsQuit).toBe(true)
    expect(await guard.request('user')).toBe('ignored')
  })

  test('a running turn: Cancel keeps everything running; confirming stops the work, then quits', async () => {
    const cancelled = guardWith({ turns: 1, saves: 0 }, false)
    expect(await cancelled.guard.request('user')).toBe('cancelled')
    expect(cancelled.calls).toEqual(['confirm'])
    expect(cancelled.guard.allowsQuit).toBe(false)
    const confirmed = guardWith({ turns: 1, saves: 0 }, true)
    expect(await confirmed.guard.request('user')).toBe('quit')
    expect(confirmed.calls).toEqual(['confirm', 'stop:user', 'quit'])
  })

  test('a second Quit while the question is open does not stack; an OS shutdown takes over', async () => {
    let answer: (value: boolean) => void = () => {}
    const { guard, calls } = guardWith({ turns: 1, saves: 0 }, new Promise<boolean>((resolve) => (answer = resolve)))
    const first = guard.request('user')
    await vi.waitFor(() => expect(calls).toEqual(['confirm']))
    expect(await guard.request('user')).toBe('ignored')
    expect(await guard.request('shutdown')).toBe('quit')
    expect(calls).toEqual(['confirm', 'stop:shutdown', 'quit'])
    answer(false)
    expect(await first).toBe('ignored')
    expect(guard.allowsQuit).toBe(true)
  })

  test('an OS shutdown with a turn running stops it without asking', async () => {
    const { guard, calls } = guardWith({ turns: 2, saves: 1 }, false)
    expect(await guard.request('shutdown')).toBe('quit')
    expect(calls).toEqual(['stop:shutdown', 'quit'])
  })

  test('saves in flight are the mutating requests until the engine answers them', async () => {
    expect(isMutatingRequest({ action: 'files.write' })).toBe(true)
    expect(isMutatingRequest({ action: 'history.apply' })).toBe(true)
    expect(isMutatingRequest({ action: 'files.read' })).toBe(false)
    expect(isMutatingRequest({ action: 'nope' })).toBe(false)
    expect(isMutatingRequest(null)).toBe(false)
    const writes = new InFlightWrites()
    expect(await writes.settled(10)).toBe(true)
    const end = writes.begin()
    const other = writes.begin()
    expect(writes.size).toBe(2)
    const settled = writes.settled(60_000)
    end()
    end()
    expect(writes.size).toBe(1)
    other()
    expect(await settled).toBe(true)
    writes.begin()
    expect(await writes.settled(1)).toBe(false)
  })

  test('running turns are found across projects and stopped through the engine', async () => {
    const asked: unknown[] = []
    const core = {
      handle: async (raw: unknown) => {
        const frame = raw as { action: string; owner: { project_id?: string }; payload: { session_id?: string } }
        asked.push([frame.action, frame.owner.project_id ?? null, frame.payload.session_id ?? null])
        const ok = (result: unknown) => ({
          request_id: null,
          action: frame.action,
          owner: frame.owner,
          status: 'ok' as const,
          result,
        })
        if (frame.action === 'project.list') return ok({ projects: [{ project_id: 'a' }, { project_id: 'b' }] })
        if (frame.action === 'session.list') {
          return ok({
            sessions:
              frame.owner.project_id === 'b'
                ? [
                    { session_id: 's1', running_turn_id: null },
                    { session_id: 's2', running_turn_id: 't9' },
                  ]
                : [],
          })
        }
        return ok({})
      },
    }
    const running = await runningTurns(core as never)
    expect(running).toEqual([{ project_id: 'b', session_id: 's2' }])
    await stopTurn(core as never, running[0] as never)
    expect(asked.at(-1)).toEqual(['session.abort', 'b', 's2'])
  })
})

describe('the IPC bridge counts saves', () => {
  test('a mutating request counts as in flight until the engine answers it', async () => {
    const { EventEmitter } = await import('node:events')
    const { attachCoreToIpc } = await import('./ipc-bridge')
    const { trustedOrigins } = await import('./navigation')
    const { IPC_REQUEST_CHANNEL } = await import('../../shared/bridge')
    const ipcMain = new EventEmitter()
    let answer: () => void = () => {}
    const core = {
      handle: (frame: unknown) =>
        new Promise((resolve) => {
          answer = () =>
            resolve({
              request_id: 'r',
              action: (frame as { action: string }).action,
              owner: {},
              status: 'ok',
              result: {},
            })
        }),
      onEvent: () => ({ dispose() {} }),
    }
    const contents = { id: 7, isDestroyed: () => false, send: vi.fn() }
    const writes = new InFlightWrites()
    const bridge = attachCoreToIpc(
      ipcMain as never,
      core as never,
      { ids: new Set([7]), all: () => [contents as never] },
      trustedOrigins(undefined),
      () => {},
      writes,
    )
    const sender = { sender: contents, senderFrame: { url: 'app://retrace/index.html', parent: null } }
    ipcMain.emit(IPC_REQUEST_CHANNEL, sender, { action: 'files.write' })
    expect(writes.size).toBe(1)
    answer()
    await writes.settled(60_000)
    expect(writes.size).toBe(0)
    ipcMain.emit(IPC_REQUEST_CHANNEL, sender, { action: 'files.read' })
    expect(writes.size).toBe(0)
    bridge.dispose()
  })
})
