import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmdirSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/** A small tmpfs of its own, so a test can fill it and watch the engine meet ENOSPC for real. */
export interface SmallDisk {
  readonly dir: string
  /** Takes all but `leaveBytes` of the free space with a filler file outside the paths under test. */
  fill(leaveBytes?: number): void
  /** Removes the filler: the space is back. */
  free(): void
  freeBytes(): number
}

const mounted: string[] = []

afterEach(() => {
  for (const dir of mounted.splice(0).reverse()) {
    // Lazy: a descriptor a failing test left open must not keep the mount (and the run) alive.
    execFileSync('umount', ['-l', dir])
    rmdirSync(dir)
  }
})

function mountTmpfs(bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrace-small-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    rmdirSync(dir)
    throw error
  }
  mounted.push(dir)
  return dir
}

/**
 * Why this machine cannot mount a tmpfs (not root, no `mount`, EPERM in a container), or null when
 * it can. Probed once by really mounting one.
 */
export const smallDiskUnavailable: string | null = (() => {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root, and this test runs as another user'
  try {
    const dir = mkdtempSync(join(tmpdir(), 'retrace-small-disk-probe-'))
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' })
      execFileSync('umount', [dir])
    } finally {
      rmdirSync(dir)
    }
    return null
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim()
    return `cannot mount a tmpfs here (${stderr || (error as Error).message})`
  }
})()

/** Mounts a fresh tmpfs of `bytes` for the current test; unmounted after it. */
export function smallDisk(bytes: number): SmallDisk {
  const dir = mountTmpfs(bytes)
  const filler = join(dir, 'filler.bin')
  const freeBytes = () => {
    const stats = statfsSync(dir)
    return Number(stats.bavail) * Number(stats.bsize)
  }
  return {
    dir,
    freeBytes,
    fill(leaveBytes = 0) {
      const take = Math.max(0, freeBytes() - leaveBytes)
      writeFileSync(filler, Buffer.alloc(take, 1), { flag: 'a' })
      // tmpfs rounds to pages: top up byte by byte until only what was asked is left.
      if (leaveBytes === 0) {
        try {
          for (;;) writeFileSync(filler, Buffer.alloc(4096, 1), { flag: 'a' })
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
        }
      }
    },
    free() {
      try {
        unlinkSync(filler)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    },
  }
}

/** Every name under `dir` (recursively) that looks like a journal temp file. */
export function tempLookalikes(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) =>
    name.split('/').some((segment) => segment.startsWith('.retrace-tmp-')),
  )
}
