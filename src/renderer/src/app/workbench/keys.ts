/**
 * Key chords as written in the command table: `Mod` is Cmd on macOS and Ctrl elsewhere, e.g.
 * `Mod+Shift+P`, `Alt+W`, `F7`. Browsers keep some chords for themselves (Ctrl+W, Ctrl+Tab), so
 * those commands carry a second chord that works in browser mode too.
 */
export type Chord = string

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

export function chordOf(event: KeyboardEvent): Chord | null {
  const key = event.key
  if (key === 'Control' || key === 'Shift' || key === 'Alt' || key === 'Meta') return null
  const mod = isMac ? event.metaKey : event.ctrlKey
  const parts: string[] = []
  if (mod) parts.push('Mod')
  if (!isMac && event.metaKey) parts.push('Meta')
  if (isMac && event.ctrlKey) parts.push('Ctrl')
  if (event.altKey) parts.push('Alt')
  if (event.shiftKey) parts.push('Shift')
  parts.push(keyName(event))
  return parts.join('+')
}

function keyName(event: KeyboardEvent): string {
  // event.code keeps letters stable under Alt/Shift (Alt+W types "∑" on a Mac keyboard).
  if (/^Key[A-Z]$/.test(event.code)) return event.code.slice(3)
  if (/^Digit\d$/.test(event.code)) return event.code.slice(5)
  if (event.code === 'BracketLeft') return '['
  if (event.code === 'BracketRight') return ']'
  if (event.code === 'Slash') return '/'
  if (event.key === ' ') return 'Space'
  return event.key.length === 1 ? event.key.toUpperCase() : event.key
}

/** How a chord is shown to a person on this platform. */
export function displayChord(chord: Chord): string {
  return chord
    .split('+')
    .map((part) => {
      if (part === 'Mod') return isMac ? '⌘' : 'Ctrl'
      if (part === 'Alt') return isMac ? '⌥' : 'Alt'
      if (part === 'Shift') return isMac ? '⇧' : 'Shift'
      if (part === 'ArrowDown') return '↓'
      if (part === 'ArrowUp') return '↑'
      return part
    })
    .join(isMac ? '' : '+')
}
