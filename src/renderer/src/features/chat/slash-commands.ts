import type { MessageKey } from '../../i18n'

export type SlashCommandName = '/new' | '/undo' | '/redo' | '/rewind'

export interface SlashCommand {
  readonly name: SlashCommandName
  readonly available: boolean
  readonly hint: MessageKey
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: '/new', available: true, hint: 'composer.cmdNew' },
  { name: '/undo', available: true, hint: 'composer.cmdUndo' },
  { name: '/redo', available: true, hint: 'composer.cmdRedo' },
  { name: '/rewind', available: true, hint: 'composer.cmdRewind' },
]

/** The commands the menu lists while the composer holds a single "/word" and nothing else. */
export function matchingCommands(text: string): readonly SlashCommand[] {
  if (!/^\/\S*$/.test(text)) return []
  return SLASH_COMMANDS.filter((command) => command.name.startsWith(text))
}

/** The next enabled entry from `from` in `step` direction, wrapping; -1 when none is enabled. */
export function nextEnabled(commands: readonly SlashCommand[], from: number, step: 1 | -1): number {
  for (let offset = 1; offset <= commands.length; offset += 1) {
    const index = (((from + step * offset) % commands.length) + commands.length) % commands.length
    if (commands[index]?.available) return index
  }
  return -1
}
