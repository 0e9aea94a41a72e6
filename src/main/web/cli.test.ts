import { describe, expect, test } from 'vitest'
import { defaultDataDir, parseWebCli } from './cli'

describe('web CLI arguments', () => {
  test('folder, port and data dir, resolved against the directory npm was run from', () => {
    expect(parseWebCli(['proj', '--port', '8123', '--data-dir', 'd'], {}, '/home/me')).toEqual({
      kind: 'ok',
      options: { folder: '/home/me/proj', port: 8123, dataDir: '/home/me/d' },
    })
  })

  test('the data dir defaults to RETRACE_DATA_DIR, then XDG_DATA_HOME/retrace', () => {
    expect(defaultDataDir({ RETRACE_DATA_DIR: '/x/data' })).toBe('/x/data')
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' })).toBe('/xdg/retrace')
    expect(parseWebCli(['p'], { XDG_DATA_HOME: '/xdg' }, '/c')).toMatchObject({
      options: { port: 0, dataDir: '/xdg/retrace' },
    })
  })

  test.each([[[]], [['a', 'b']], [['a', '--port', 'x']], [['a', '--port', '70000']], [['a', '--bogus']]])(
    '%j is a usage error',
    (argv) => {
      expect(parseWebCli(argv, {}, '/c').kind).toBe('usage')
    },
  )
})
