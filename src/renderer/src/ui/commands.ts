import type { MessageKey } from '../i18n'
import { createStore, type Store } from './store'

/**
 * A key chord as contributions write it: `Mod` is Cmd on macOS and Ctrl elsewhere, e.g.
 * `Mod+Shift+P`, `Alt+W`, `F7` (app/workbench/keys.ts turns a keyboard event into one).
 */
export type Chord = string

/** Where the workbench shows things; the only part of the window a feature's command may drive. */
export interface WorkbenchPort {
  showPane(pane: 'explorer' | 'chat'): void
  openReviewTab(): void
}

/** What a command runs against: the project on screen (null before one is open) and the window. */
export interface CommandContext {
  readonly projectId: string | null
  readonly workbench: WorkbenchPort
}

/**
 * One command of the window, contributed by the feature that does the work (as VS Code's
 * contributions and Excalidraw's actions): the palette, the keyboard, the shortcuts help and the
 * desktop menu all find it here, so a shortcut cannot exist without being listed.
 */
export interface Command {
  readonly id: string
  readonly title: MessageKey
  /** Every chord that runs it; the first is the one shown. */
  readonly keybindings?: readonly Chord[]
  /** Listed in the palette unless false (some only make sense from a key, e.g. the palette itself). */
  readonly inPalette?: boolean
  /** Whether it applies now; a command that does not is neither listed nor run by its keys. */
  readonly when?: (context: CommandContext) => boolean
  run(context: CommandContext): void
}

export type RunOutcome =
  | { readonly kind: 'ran'; readonly id: string }
  | { readonly kind: 'unknown'; readonly id: string }
  | { readonly kind: 'disabled'; readonly id: string }

/**
 * The window's commands. Two contributions of one id, or two commands bound to one chord, are a
 * programming error caught when the second registers: a key that silently ran whichever came first
 * is the bug this table exists to prevent.
 */
export class CommandRegistry {
  readonly store: Store<readonly Command[]> = createStore<readonly Command[]>([])

  /** Adds commands; the returned function removes exactly these again. */
  register(commands: readonly Command[]): () => void {
    const current = this.store.get()
    const ids = new Set(current.map((command) => command.id))
    const chords = new Map(current.flatMap((command) => (command.keybindings ?? []).map((c) => [c, command.id])))
    for (const command of commands) {
      if (ids.has(command.id)) throw new Error(`command ${command.id} is registered twice`)
      ids.add(command.id)
      for (const chord of command.keybindings ?? []) {
        const owner = chords.get(chord)
        if (owner !== undefined) throw new Error(`${chord} is bound to both ${owner} and ${command.id}`)
        chords.set(chord, command.id)
      }
    }
    this.store.set([...current, ...commands])
    const added = new Set(commands)
    return () => this.store.set((all) => all.filter((command) => !added.has(command)))
  }

  list(): readonly Command[] {
    return this.store.get()
  }

  get(id: string): Command | undefined {
    return this.store.get().find((command) => command.id === id)
  }

  /** The command a chord runs now, if any (one that does not apply leaves the key to the widget). */
  forChord(chord: Chord, context: CommandContext): Command | undefined {
    const command = this.store.get().find((c) => c.keybindings?.includes(chord) === true)
    return command && applies(command, context) ? command : undefined
  }

  /** Commands the palette lists now. */
  palette(context: CommandContext): readonly Command[] {
    return this.store.get().filter((command) => command.inPalette !== false && applies(command, context))
  }

  run(id: string, context: CommandContext): RunOutcome {
    const command = this.get(id)
    if (!command) return { kind: 'unknown', id }
    if (!applies(command, context)) return { kind: 'disabled', id }
    command.run(context)
    return { kind: 'ran', id }
  }
}

function applies(command: Command, context: CommandContext): boolean {
  return command.when ? command.when(context) : true
}

/**
 * A one-way message to whoever listens now (a mounted view), in place of a counter passed down as
 * a prop and compared on every render: nothing is replayed to a view that mounts later.
 */
export interface Signal<T> {
  emit(value: T): void
  listen(listener: (value: T) => void): () => void
}

export function createSignal<T>(): Signal<T> {
  const listeners = new Set<(value: T) => void>()
  return {
    emit(value) {
      for (const listener of [...listeners]) listener(value)
    },
    listen(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
