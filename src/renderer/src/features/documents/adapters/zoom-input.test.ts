import { describe, expect, test } from 'vitest'
import { wheelZoomOf, zoomCommandOf } from './zoom-input'

const key = (key: string, extra: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; code: string }> = {}) =>
  zoomCommandOf({ key, code: '', ctrlKey: true, metaKey: false, altKey: false, ...extra })
const wheel = (deltaY: number, deltaMode = 0, ctrlKey = true) =>
  wheelZoomOf({ deltaY, deltaMode, ctrlKey, metaKey: false, clientX: 10, clientY: 20 })

describe('zoom keys and wheel', () => {
  test('Ctrl or Cmd with =, +, -, 0 (and the keypad) are zoom commands; without them, or with Alt, nothing', () => {
    expect(key('=')).toEqual({ kind: 'in' })
    expect(key('+')).toEqual({ kind: 'in' })
    expect(key('-')).toEqual({ kind: 'out' })
    expect(key('0')).toEqual({ kind: 'reset' })
    expect(key('=', { ctrlKey: false, metaKey: true })).toEqual({ kind: 'in' })
    expect(key('Add', { code: 'NumpadAdd' })).toEqual({ kind: 'in' })
    expect(key('=', { ctrlKey: false })).toBeNull()
    expect(key('=', { altKey: true })).toBeNull()
    expect(key('p')).toBeNull()
  })

  test('a mouse wheel notch is one step; a pinch (small pixel deltas) a continuous factor; no Ctrl, no zoom', () => {
    expect(wheel(-100)).toEqual({ kind: 'steps', steps: 1, clientX: 10, clientY: 20 })
    expect(wheel(3, 1)).toEqual({ kind: 'steps', steps: -1, clientX: 10, clientY: 20 })
    const pinch = wheel(-10)
    expect(pinch?.kind).toBe('factor')
    expect(pinch?.kind === 'factor' && pinch.factor).toBeCloseTo(Math.exp(0.1))
    expect(wheel(-100, 0, false)).toBeNull()
    expect(wheel(0)).toBeNull()
  })
})
