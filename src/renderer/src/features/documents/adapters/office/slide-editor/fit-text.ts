/**
 * The approximate renderer draws each text box at its frame's size with `overflow: hidden`, and
 * ignores PowerPoint's autofit (`a:normAutofit fontScale`): a title that PowerPoint shrinks to fit
 * overflows here, and a vertically centred box then loses its first line above the top edge. This
 * measures every text box once it is laid out and shrinks its text until it fits, as autofit does;
 * a box still too full at the smallest step shows its overflow below rather than clip anything.
 */

const STEP = 0.9
/** 0.9^8 ≈ 43 %: PowerPoint's own autofit rarely goes below that; past it the text overflows. */
const MAX_STEPS = 8
const FITTED = 'data-fitted'

export function fitSlideText(root: HTMLElement): void {
  for (const box of root.querySelectorAll<HTMLElement>('.slide > div')) {
    if (box.hasAttribute(FITTED) || !box.textContent?.trim() || box.style.overflow !== 'hidden') continue
    box.setAttribute(FITTED, '')
    if (!overflows(box)) continue
    const sized = [box, ...box.querySelectorAll<HTMLElement>('*')].map((element) => ({
      element,
      size: Number.parseFloat(getComputedStyle(element).fontSize),
    }))
    for (let step = 1; step <= MAX_STEPS && overflows(box); step++) {
      const factor = STEP ** step
      for (const { element, size } of sized) {
        if (Number.isFinite(size) && size > 0) element.style.fontSize = `${size * factor}px`
      }
    }
    if (overflows(box)) {
      // Too much text even at the smallest step: from the top, and spilling below, never cut.
      box.style.justifyContent = 'flex-start'
      box.style.overflow = 'visible'
    }
  }
}

function overflows(box: HTMLElement): boolean {
  return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1
}
