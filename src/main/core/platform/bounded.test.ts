import { expect, test } from 'vitest'
import { createFairLimiter, createLimiter } from './bounded'

test('runs every task in call order, returns each result, and never exceeds the limit in flight', async () => {
  const limit = createLimiter(4)
  let inFlight = 0
  let peak = 0
  const started: number[] = []
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      limit(async () => {
        started.push(i)
        inFlight += 1
        peak = Math.max(peak, inFlight)
        await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5))
        inFlight -= 1
        return i
      }),
    ),
  )
  expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i))
  expect(started).toEqual(Array.from({ length: 50 }, (_, i) => i))
  expect(peak).toBe(4)
  await expect(limit(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
  expect(await limit(async () => 'still works')).toBe('still works')
})

test('the fair limiter gives a free slot to the owner with the fewest tasks running, never more than the limit', async () => {
  const limit = createFairLimiter(2)
  const greedy = {}
  const polite = {}
  const order: string[] = []
  const gates: Array<() => void> = []
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      order.push(name)
      gates.push(() => resolve(name))
    })
  const done = [0, 1, 2, 3, 4].map((i) => limit(greedy, task(`g${i}`)))
  const late = limit(polite, task('p0'))
  expect(order).toEqual(['g0', 'g1'])
  gates.shift()?.() // g0 ends: the polite owner has nothing running, so it goes next
  await new Promise((resolve) => setTimeout(resolve, 0))
  expect(order).toEqual(['g0', 'g1', 'p0'])
  while (gates.length > 0) {
    gates.shift()?.()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
  expect(await late).toBe('p0')
  expect(await Promise.all(done)).toEqual(['g0', 'g1', 'g2', 'g3', 'g4'])
  expect(order).toEqual(['g0', 'g1', 'p0', 'g2', 'g3', 'g4'])
  await expect(limit(polite, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
  expect(await limit(polite, async () => 'still works')).toBe('still works')
})
