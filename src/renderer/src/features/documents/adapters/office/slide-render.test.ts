import { describe, expect, test } from 'vitest'
import { pdfPageForSlide } from './slide-render'

describe('the LibreOffice page of a slide', () => {
  test('is the slide number when no slide is hidden', () => {
    expect(pdfPageForSlide([false, false, false], 3)).toBe(3)
  })
  test('skips hidden slides before it, as LibreOffice leaves them out of the PDF', () => {
    expect(pdfPageForSlide([false, true, false, false], 4)).toBe(3)
  })
  test('is none for a hidden slide or one the deck does not have', () => {
    expect(pdfPageForSlide([false, true], 2)).toBeNull()
    expect(pdfPageForSlide([false], 5)).toBeNull()
  })
})
