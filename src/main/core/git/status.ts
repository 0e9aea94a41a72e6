import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/** One changed path, as `git status --porcelain=v2` reports it. */
export interface StatusEntry {
  readonly path: string
  /** For a rename or copy: where it came from. */
  readonly old_path: string | null
  /** X (staged) and Y (unstaged) status letters; `?` for untracked. */
  readonly staged: string
  readonly unstaged: string
  readonly head_oid: string | null
  readonly index_oid: string | null
}

/**
 * Working-tree status with untracked files that .gitignore does not exclude (spec 07). A submodule
 * counts as changed when its commit moved, not when its own files did: finding that out would run
 * a git inside it under its own configuration (runner.ts).
 */
export async function status(root: string): Promise<Outcome<{ entries: StatusEntry[]; raw: Buffer }>> {
  const out = await git(
    root,
    ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--ignore-submodules=dirty'],
    'status',
  )
  if (out.kind === 'error') return out
  return { kind: 'ok', result: { entries: parsePorcelainV2(out.result.toString('utf8')), raw: out.result } }
}

const ZERO = /^0+$/

export function parsePorcelainV2(text: string): StatusEntry[] {
  const fields = text.split('\0')
  const entries: StatusEntry[] = []
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? ''
    if (field.startsWith('1 ')) {
      // 1 XY sub mH mI mW hH hI path
      const parts = field.split(' ')
      const xy = parts[1] ?? '..'
      const path = parts.slice(8).join(' ')
      entries.push({
        path,
        old_path: null,
        staged: xy[0] ?? '.',
        unstaged: xy[1] ?? '.',
        head_oid: ZERO.test(parts[6] ?? '') ? null : (parts[6] ?? null),
        index_oid: ZERO.test(parts[7] ?? '') ? null : (parts[7] ?? null),
      })
    } else if (field.startsWith('2 ')) {
      // 2 XY sub mH mI mW hH hI Xscore path \0 origPath  (a staged rename or copy)
      const parts = field.split(' ')
      const xy = parts[1] ?? '..'
      entries.push({
        path: parts.slice(9).join(' '),
        old_path: fields[++i] ?? null,
        staged: xy[0] ?? '.',
        unstaged: xy[1] ?? '.',
        head_oid: ZERO.test(parts[6] ?? '') ? null : (parts[6] ?? null),
        index_oid: ZERO.test(parts[7] ?? '') ? null : (parts[7] ?? null),
      })
    } else if (field.startsWith('? ')) {
      entries.push({
        path: field.slice(2),
        old_path: null,
        staged: '.',
        unstaged: '?',
        head_oid: null,
        index_oid: null,
      })
    } else if (field.startsWith('u ')) {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      const parts = field.split(' ')
      entries.push({
        path: parts.slice(10).join(' '),
        old_path: null,
        staged: 'U',
        unstaged: 'U',
        head_oid: parts[7] ?? null,
        index_oid: parts[8] ?? null,
      })
    }
  }
  return entries
}
