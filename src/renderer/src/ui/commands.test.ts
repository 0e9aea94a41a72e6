import { expect, test } from 'vitest'
import { CommandRegistry, createSignal, type Command, type CommandContext } from './commands'

const context = (projectId: string | null = 'prj_1'): CommandContext => ({
  projectId,
  workbench: { showPane: () => undefined, openReviewTab: () => undefined },
})

function recorder() {
  const ran: string[] = []
  const command = (id: string, extra: Partial<Command> = {}): Command => ({
    id,
    title: 'command.palette',
    run: () => ran.push(id),
    ...extra,
  })
  return { ran, command }
}

test('a registered command runs by id; an unknown id says so and runs nothing', () => {
  const registry = new CommandRegistry()
  const { ran, command } = recorder()
  registry.register([command('a'), command('b')])
  expect(registry.run('b', context())).toEqual({ kind: 'ran', id: 'b' })
  expect(registry.run('missing', context())).toEqual({ kind: 'unknown', id: 'missing' })
  expect(ran).toEqual(['b'])
})

test('an id or a chord registered twice is refused when the second contribution registers', () => {
  const registry = new CommandRegistry()
  const { command } = recorder()
  registry.register([command('a', { keybindings: ['Mod+K'] })])
  expect(() => registry.register([command('a')])).toThrow(/registered twice/)
  expect(() => registry.register([command('b', { keybindings: ['F2', 'Mod+K'] })])).toThrow(/Mod\+K is bound/)
  expect(() => registry.register([command('c'), command('c')])).toThrow(/registered twice/)
  // A refused batch registers nothing of itself.
  expect(registry.list().map((c) => c.id)).toEqual(['a'])
})

test('unregistering removes exactly the contribution, freeing its id and chords', () => {
  const registry = new CommandRegistry()
  const { ran, command } = recorder()
  registry.register([command('a', { keybindings: ['F2'] })])
  const remove = registry.register([command('b', { keybindings: ['F3'] })])
  remove()
  expect(registry.list().map((c) => c.id)).toEqual(['a'])
  expect(registry.forChord('F3', context())).toBeUndefined()
  registry.register([command('b', { keybindings: ['F3'] })])
  registry.forChord('F3', context())?.run(context())
  expect(ran).toEqual(['b'])
})

test('a command that does not apply is neither listed, found by its chord, nor run', () => {
  const registry = new CommandRegistry()
  const { ran, command } = recorder()
  registry.register([
    command('needs-project', { keybindings: ['F4'], when: (c) => c.projectId !== null }),
    command('hidden', { inPalette: false }),
    command('always'),
  ])
  expect(registry.palette(context(null)).map((c) => c.id)).toEqual(['always'])
  expect(registry.palette(context()).map((c) => c.id)).toEqual(['needs-project', 'always'])
  expect(registry.forChord('F4', context(null))).toBeUndefined()
  expect(registry.run('needs-project', context(null))).toEqual({ kind: 'disabled', id: 'needs-project' })
  expect(ran).toEqual([])
})

test('a signal reaches the listeners present when it is emitted, and no one after they leave', () => {
  const signal = createSignal<string>()
  const heard: string[] = []
  const stop = signal.listen((value) => heard.push(value))
  signal.emit('one')
  stop()
  signal.emit('two')
  expect(heard).toEqual(['one'])
})
