import { expect, test } from 'vitest'
import { createLimiter } from './bounded'

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
