import { describe, expect, test } from 'vitest'
import { FIT, pinchScale, stepScale, zoomFor } from './zoom'

describe('image zoom steps', () => {
  test('zoom in and out go to the next step from the scale on screen, within 10 %–800 %', () => {
    expect(stepScale(1, 1)).toBe(1.5)
    expect(stepScale(1, -1)).toBe(0.75)
    // From a fit between steps: the next step each way.
    expect(stepScale(0.33, 1)).toBe(0.5)
    expect(stepScale(0.33, -1)).toBe(0.25)
    // A fit a hair off a step does not step to that same step.
    expect(stepScale(0.4999, 1)).toBe(0.75)
    expect(stepScale(8, 1)).toBe(8)
    expect(stepScale(0.1, -1)).toBe(0.1)
  })

  test('a pinch scales continuously and stays within the range', () => {
    expect(pinchScale(1, 1.1)).toBe(1.1)
    expect(pinchScale(7, 2)).toBe(8)
    expect(pinchScale(0.2, 0.1)).toBe(0.1)
  })

  test('keys and wheel map to zooms; Ctrl+0 goes back to the fit', () => {
    const at = { clientX: 0, clientY: 0 }
    expect(zoomFor({ kind: 'in' }, 1)).toEqual({ kind: 'scale', scale: 1.5 })
    expect(zoomFor({ kind: 'out' }, 1)).toEqual({ kind: 'scale', scale: 0.75 })
    expect(zoomFor({ kind: 'reset' }, 3)).toEqual(FIT)
    expect(zoomFor({ kind: 'steps', steps: -1, ...at }, 1)).toEqual({ kind: 'scale', scale: 0.75 })
    expect(zoomFor({ kind: 'factor', factor: 1.2, ...at }, 1)).toEqual({ kind: 'scale', scale: 1.2 })
  })
})
