import { relative, sep, isAbsolute } from 'node:path'

/** True when `candidate` is `parent` itself or lies below it (both absolute, real paths). */
export function isInside(parent: string, candidate: string): boolean {
  const rel = relative(parent, candidate)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}
