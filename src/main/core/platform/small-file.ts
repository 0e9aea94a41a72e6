import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from 'node:fs'

/**
 * The text of a small regular file named by a repository or found in a project (an ignore or
 * exclude file), or `undefined` when there is none to read: absent, unreadable, larger than
 * `maxBytes`, a link while `followLinks` is off, or not a regular file at all. Such names are data a
 * hostile repository chooses (issue 23): a FIFO would block the open (or the read) for good, and a
 * device such as /dev/zero never ends, on the engine's event loop. The type is checked before any
 * open — opening a FIFO, even without blocking, would release a writer waiting on it — and again
 * on the open descriptor (non-blocking, so a FIFO swapped in between cannot block it either).
 */
export function readSmallRegularFile(
  path: string,
  options: { readonly maxBytes: number; readonly followLinks: boolean },
): string | undefined {
  try {
    const named = options.followLinks ? statSync(path) : lstatSync(path)
    if (!named.isFile() || named.size > options.maxBytes) return undefined
    const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks ? 0 : constants.O_NOFOLLOW)
    const fd = openSync(path, flags)
    try {
      const opened = fstatSync(fd)
      if (!opened.isFile() || opened.size > options.maxBytes) return undefined
      // One byte more than allowed: a file that grew past the bound since fstat is refused, not cut.
      const buffer = Buffer.allocUnsafe(opened.size + 1)
      let total = 0
      while (total < buffer.length) {
        const n = readSync(fd, buffer, total, buffer.length - total, total)
        if (n === 0) break
        total += n
      }
      return total > options.maxBytes ? undefined : buffer.toString('utf8', 0, total)
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}
