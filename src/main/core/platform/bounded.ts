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
