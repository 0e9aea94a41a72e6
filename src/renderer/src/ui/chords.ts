import type { Chord } from './commands'

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

/** How a chord is shown to a person on this platform (a feature's hint and the shortcuts help alike). */
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
