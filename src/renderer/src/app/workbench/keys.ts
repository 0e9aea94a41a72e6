import { isMac } from '../../ui/chords'
import type { Chord, CommandContext, CommandRegistry, RunOutcome } from '../../ui/commands'

export { displayChord, isMac } from '../../ui/chords'

// Browsers keep some chords for themselves (Ctrl+W, Ctrl+Tab), so those commands carry a second
// chord that works in browser mode too.
export type { Chord }

/** The parts of a keyboard event a chord is made of. */
export type KeyPress = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>


export function chordOf(event: KeyPress): Chord | null {
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

function keyName(event: KeyPress): string {
  // event.code keeps letters stable under Alt/Shift (Alt+W types "∑" on a Mac keyboard).
  if (/^Key[A-Z]$/.test(event.code)) return event.code.slice(3)
  if (/^Digit\d$/.test(event.code)) return event.code.slice(5)
  if (event.code === 'BracketLeft') return '['
  if (event.code === 'BracketRight') return ']'
  if (event.code === 'Slash') return '/'
  if (event.key === ' ') return 'Space'
  return event.key.length === 1 ? event.key.toUpperCase() : event.key
}


/**
 * The window's one keyboard handler, run before any widget (Monaco included) sees the key: a chord
 * a command applies to runs it and is consumed; any other key is left alone (null).
 */
export function dispatchKey(
  registry: CommandRegistry,
  event: KeyPress & Pick<KeyboardEvent, 'preventDefault' | 'stopPropagation'>,
  context: CommandContext,
): RunOutcome | null {
  const chord = chordOf(event)
  const command = chord === null ? undefined : registry.forChord(chord, context)
  if (!command) return null
  event.preventDefault()
  event.stopPropagation()
  return registry.run(command.id, context)
}
