/**
 * Pixel offsets of a sheet's rows or columns (each with its own size), for virtualising a grid
 * whose rows and columns are not all the same size: offsets are prefix sums, the first item in
 * view a binary search.
 */
export class Axis {
  /** `offsets[i]` is where item `i + 1` starts; `offsets[count]` is the total length. */
  private readonly offsets: Float64Array

  constructor(
    readonly count: number,
    size: (index: number) => number,
  ) {
    this.offsets = new Float64Array(count + 1)
    for (let i = 1; i <= count; i++) this.offsets[i] = (this.offsets[i - 1] ?? 0) + size(i)
  }

  /** Where the 1-based item starts. */
  start(index: number): number {
    return this.offsets[Math.max(0, Math.min(this.count, index - 1))] ?? 0
  }

  size(index: number): number {
    return this.start(index + 1) - this.start(index)
  }

  /** Length of items `from`…`to` together. */
  span(from: number, to: number): number {
    return this.start(to + 1) - this.start(from)
  }

  get total(): number {
    return this.offsets[this.count] ?? 0
  }

  /** The 1-based item at a pixel offset (clamped to the first and last). */
  at(offset: number): number {
    let low = 0
    let high = this.count - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((this.offsets[middle] ?? 0) <= offset) low = middle
      else high = middle - 1
    }
    return low + 1
  }
}
