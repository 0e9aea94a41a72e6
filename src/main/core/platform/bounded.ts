/**
 * A limiter: `limit(task)` runs the task when fewer than `max` are in flight, in call order. Each
 * blob write holds a file descriptor; a 10 000-file transaction started all at once would run out
 * of them (EMFILE).
 */
export function createLimiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0
  const queue: Array<() => void> = []
  const release = () => {
    active -= 1
    queue.shift()?.()
  }
  return <T>(task: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const run = () => {
        active += 1
        task().then(resolve, reject).finally(release)
      }
      if (active < max) run()
      else queue.push(run)
    })
}

/**
 * A limiter shared by owners that do not trust each other (the turns of different sessions): at
 * most `max` tasks run at once, and a free slot goes to the waiting owner with the fewest tasks
 * running, the one waiting longest among equals, then that owner's oldest task. One owner
 * queueing a hundred tasks therefore delays another's next task by one task, not a hundred.
 */
export function createFairLimiter(max: number): <T>(owner: object, task: () => Promise<T>) => Promise<T> {
  const running = new Map<object, number>()
  // Owners in the order they started waiting; an owner that was just served goes to the back.
  const waiting = new Map<object, Array<() => void>>()
  let active = 0
  const next = () => {
    if (active >= max) return
    let chosen: object | undefined
    for (const owner of waiting.keys()) {
      if (chosen === undefined || (running.get(owner) ?? 0) < (running.get(chosen) ?? 0)) chosen = owner
    }
    if (chosen === undefined) return
    const tasks = waiting.get(chosen) as Array<() => void>
    waiting.delete(chosen)
    const start = tasks.shift() as () => void
    if (tasks.length > 0) waiting.set(chosen, tasks)
    start()
  }
  return <T>(owner: object, task: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        active += 1
        running.set(owner, (running.get(owner) ?? 0) + 1)
        task()
          .then(resolve, reject)
          .finally(() => {
            active -= 1
            const left = (running.get(owner) ?? 1) - 1
            if (left === 0) running.delete(owner)
            else running.set(owner, left)
            next()
          })
      }
      const queue = waiting.get(owner)
      if (queue) queue.push(start)
      else waiting.set(owner, [start])
      next()
    })
}
