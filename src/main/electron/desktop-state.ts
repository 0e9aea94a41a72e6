import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/**
 * What the desktop shell remembers between launches, in `<data>/desktop-state.json` (0600): the
 * window's place and size (its normal bounds, even while maximised) and the chosen theme.
 */
const Rectangle = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
})
export type Rectangle = z.infer<typeof Rectangle>

const DesktopState = z.object({
  window: z
    .object({ bounds: Rectangle.nullable(), maximized: z.boolean(), fullScreen: z.boolean() })
    .default({ bounds: null, maximized: false, fullScreen: false }),
  /** Electron `nativeTheme.themeSource`: `system` follows the OS. */
  theme: z.enum(['system', 'light', 'dark']).default('system'),
})
export type DesktopState = z.infer<typeof DesktopState>
export type WindowState = DesktopState['window']
export type ThemeChoice = DesktopState['theme']

export const DESKTOP_STATE_FILE = 'desktop-state.json'
export const DEFAULT_WINDOW_SIZE = { width: 1280, height: 820 } as const
/** Smallest window the workbench lays out in (its panes collapse below this). */
export const MIN_WINDOW_SIZE = { width: 640, height: 420 } as const

export function parseDesktopState(text: string | null): DesktopState {
  if (text === null) return DesktopState.parse({})
  try {
    const parsed = DesktopState.safeParse(JSON.parse(text))
    if (parsed.success) return parsed.data
  } catch {
    // unreadable: start from the defaults
  }
  return DesktopState.parse({})
}

export function readDesktopState(dataDir: string): DesktopState {
  try {
    return parseDesktopState(readFileSync(join(dataDir, DESKTOP_STATE_FILE), 'utf8'))
  } catch {
    return parseDesktopState(null)
  }
}

/** Replaces the file whole (temp + rename), so a crash leaves the old state or the new one. */
export function writeDesktopState(dataDir: string, state: DesktopState): void {
  const target = join(dataDir, DESKTOP_STATE_FILE)
  const temp = `${target}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 })
  renameSync(temp, target)
}

/** The work areas of the connected displays (Electron `screen.getAllDisplays()[i].workArea`). */
export type WorkArea = Rectangle

/** How much of a saved window must still be on a display for it to reopen there. */
const VISIBLE_MARGIN = { width: 120, height: 48 } as const

/**
 * Where the window opens: its saved bounds when enough of it is still on a connected display (a
 * monitor may have been unplugged since), resized to fit that display; otherwise the default size,
 * centred by Electron (no position).
 */
export function initialBounds(
  saved: WindowState,
  displays: readonly WorkArea[],
): { x?: number; y?: number; width: number; height: number } {
  const bounds = saved.bounds
  if (bounds) {
    const display = displays.find((area) => showsEnoughOf(area, bounds))
    if (display) {
      const width = clamp(bounds.width, MIN_WINDOW_SIZE.width, display.width)
      const height = clamp(bounds.height, MIN_WINDOW_SIZE.height, display.height)
      return {
        x: clamp(bounds.x, display.x, display.x + display.width - width),
        y: clamp(bounds.y, display.y, display.y + display.height - height),
        width,
        height,
      }
    }
  }
  const primary = displays[0]
  return {
    width: primary ? Math.min(DEFAULT_WINDOW_SIZE.width, primary.width) : DEFAULT_WINDOW_SIZE.width,
    height: primary ? Math.min(DEFAULT_WINDOW_SIZE.height, primary.height) : DEFAULT_WINDOW_SIZE.height,
  }
}

function showsEnoughOf(area: Rectangle, window: Rectangle): boolean {
  const width = Math.min(area.x + area.width, window.x + window.width) - Math.max(area.x, window.x)
  const height = Math.min(area.y + area.height, window.y + window.height) - Math.max(area.y, window.y)
  return width >= VISIBLE_MARGIN.width && height >= VISIBLE_MARGIN.height
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, Math.max(min, max)))
}

/** What a window tells about itself when it closes (the subset of `BrowserWindow` used). */
export interface WindowFacts {
  getNormalBounds(): Rectangle
  isMaximized(): boolean
  isFullScreen(): boolean
}

export function captureWindowState(window: WindowFacts): WindowState {
  const { x, y, width, height } = window.getNormalBounds()
  return {
    bounds: { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) },
    maximized: window.isMaximized(),
    fullScreen: window.isFullScreen(),
  }
}

/** View → Dark Mode: from whatever shows now to the other one, as an explicit choice. */
export function toggledTheme(showingDark: boolean): ThemeChoice {
  return showingDark ? 'light' : 'dark'
}
