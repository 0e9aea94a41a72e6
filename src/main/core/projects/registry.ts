import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { basename, isAbsolute } from 'node:path'
import { fail, ok, type Outcome, type ProjectSummary } from '../../../shared/protocol'
import type { Database } from '../store'
import { isInside } from '../platform'

interface ProjectRow {
  project_id: string
  root: string
  name: string
}

export type Project = ProjectSummary

export interface ProjectRegistry {
  open(path: string): Promise<Outcome<Project>>
  list(): Project[]
  get(projectId: string): Project | undefined
}

/**
 * Projects are keyed by the real path of their root, so opening the same folder twice (or through a
 * symlink) yields the same stable `project_id`.
 */
export function createProjectRegistry(db: Database, dataDir: string): ProjectRegistry {
  const byRoot = db.prepare('SELECT project_id, root, name FROM projects WHERE root = ?')
  const byId = db.prepare('SELECT project_id, root, name FROM projects WHERE project_id = ?')
  const all = db.prepare('SELECT project_id, root, name FROM projects ORDER BY last_opened_at_ms DESC, root')
  const insert = db.prepare(
    'INSERT INTO projects (project_id, root, name, created_at_ms, last_opened_at_ms) VALUES (?, ?, ?, ?, ?)',
  )
  const touch = db.prepare('UPDATE projects SET last_opened_at_ms = ? WHERE project_id = ?')

  const toProject = (row: ProjectRow): Project => ({
    project_id: row.project_id,
    root: row.root,
    name: row.name,
    is_git: existsSync(`${row.root}/.git`),
  })

  return {
    async open(path) {
      if (path.includes('\0')) {
        return fail('INVALID_REQUEST', 'A folder path cannot contain a NUL character.', { reason: 'nul' })
      }
      if (!path.isWellFormed()) {
        return fail('INVALID_REQUEST', 'The folder path is not valid Unicode text.', { reason: 'not-unicode' })
      }
      if (!isAbsolute(path)) {
        return fail('INVALID_REQUEST', `"${path}" is not an absolute folder path.`, { path, reason: 'not-absolute' })
      }
      let root: string
      try {
        const info = await stat(path)
        if (!info.isDirectory())
          return fail('INVALID_REQUEST', `"${path}" is a file, not a folder.`, {
            path,
            reason: 'not-a-folder',
          })
        root = await realpath(path)
      } catch (error) {
        return openFailure(error, path)
      }
      if (isInside(dataDir, root)) {
        return fail('PERMISSION_DENIED', "Retrace's own data folder cannot be opened as a project.", {
          path,
          reason: 'data-folder',
        })
      }
      const now = Date.now()
      const existing = byRoot.get(root) as ProjectRow | undefined
      if (existing) {
        touch.run(now, existing.project_id)
        return ok(toProject(existing))
      }
      const row: ProjectRow = { project_id: `prj_${randomUUID()}`, root, name: basename(root) || root }
      insert.run(row.project_id, row.root, row.name, now, now)
      return ok(toProject(row))
    },
    list() {
      return (all.all() as unknown as ProjectRow[]).map(toProject)
    },
    get(projectId) {
      const row = byId.get(projectId) as ProjectRow | undefined
      return row ? toProject(row) : undefined
    },
  }
}

function openFailure(error: unknown, path: string): Outcome<never> {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return fail('NOT_FOUND', `There is no folder at "${path}".`, { path, reason: 'no-folder' })
  if (code === 'EACCES' || code === 'EPERM') {
    return fail('PERMISSION_DENIED', `Retrace may not read the folder "${path}".`, { path, reason: 'no-access' })
  }
  if (code === 'ENAMETOOLONG') {
    return fail('INVALID_REQUEST', 'The folder path is too long for this file system.', {
      path,
      reason: 'too-long',
    })
  }
  if (code === 'ELOOP') return fail('INVALID_REQUEST', `"${path}" is a symlink loop.`, { path, reason: 'symlink-loop' })
  throw error
}
