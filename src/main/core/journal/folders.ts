import { opendirSync, rmdirSync, type Dir } from 'node:fs'
import { openChain } from '../project-fs'

const segmentsOf = (path: string) => (path === '' ? [] : path.split('/'))

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Deepest first, so a folder is tried only after every folder below it. */
export function deepestFirst(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((a, b) => segmentsOf(b).length - segmentsOf(a).length || byPath(a, b))
}

/** Outermost first, so a folder is made only after the folder it goes into. */
export function outermostFirst(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((a, b) => segmentsOf(a).length - segmentsOf(b).length || byPath(a, b))
}

/**
 * What a folder holds besides some names that are about to go, read through folders opened from
 * the root without following links. `only-leaving`: nothing else (the folder is empty once they
 * are gone); `holds-other`: anything else (a file the person put there, an ignored file, a link);
 * `not-a-folder`: absent, a link, a file, or unreachable. Reading stops at the first other entry,
 * so a folder of a million files costs at most `leaving`'s size + 1 entries.
 */
export type FolderContents = 'only-leaving' | 'holds-other' | 'not-a-folder'

export function folderContents(root: string, path: string, leaving: (name: string) => boolean): FolderContents {
  const walked = openChain(root, segmentsOf(path))
  if (walked.kind === 'failed') return 'not-a-folder'
  try {
    if (walked.chain.missing.length > 0) return 'not-a-folder'
    let dir: Dir
    try {
      dir = opendirSync(walked.chain.deepest.self)
    } catch {
      return 'not-a-folder'
    }
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        if (!leaving(entry.name)) return 'holds-other'
      }
      return 'only-leaving'
    } catch {
      return 'holds-other'
    } finally {
      dir.closeSync()
    }
  } finally {
    walked.chain.close()
  }
}

/**
 * Removes those of `paths` that are empty folders now, deepest first, each through its parent
 * opened from the root without following links. `rmdir` itself refuses a folder that holds
 * anything, so a file that arrives at any moment is never lost; such a folder simply stays.
 * Returns the folders removed.
 */
export function removeEmptyFolders(root: string, paths: Iterable<string>): string[] {
  const removed: string[] = []
  for (const path of deepestFirst(paths)) {
    const segments = segmentsOf(path)
    const name = segments.pop()
    if (name === undefined) continue
    const walked = openChain(root, segments)
    if (walked.kind === 'failed') continue
    try {
      if (walked.chain.missing.length > 0) continue
      rmdirSync(walked.chain.deepest.at(name))
      removed.push(path)
    } catch {
      // not empty, gone already, a link or a file (ENOTDIR): not ours to remove
    } finally {
      walked.chain.close()
    }
  }
  return removed
}
