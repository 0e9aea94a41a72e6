import { baseName, parentPath } from '../../../../shared/paths'
import type { RequestClient } from '../../transport'
import type { CopyOutcome } from './adapters/types'
import { toBase64 } from '../../ui/binary-text'

/** How many numbered names ("name (1).png" …) are tried before giving up. */
const MAX_SUFFIX = 99

/**
 * Writes `bytes` as a NEW file next to `path` with another extension — `name.png`, else
 * `name (1).png`, `name (2).png`… — through `files.write` with `expected_revision: null`, which
 * the journal refuses when the name exists: a conversion can never replace a file, and it is
 * recorded (and undoable) as a human operation like any other write.
 */
export async function createCopyNextTo(
  client: RequestClient,
  projectId: string,
  path: string,
  bytes: Uint8Array,
  extension: string,
): Promise<CopyOutcome> {
  const folder = parentPath(path)
  const name = baseName(path)
  const dot = name.lastIndexOf('.')
  const stem = dot > 0 ? name.slice(0, dot) : name
  const content_base64 = toBase64(bytes)
  for (let suffix = 0; suffix <= MAX_SUFFIX; suffix++) {
    const candidate = `${stem}${suffix === 0 ? '' : ` (${suffix})`}.${extension}`
    const target = folder ? `${folder}/${candidate}` : candidate
    const outcome = await client.request(
      'files.write',
      { path: target, content_base64, expected_revision: null },
      {
        owner: { project_id: projectId },
        idempotencyKey: crypto.randomUUID(),
        timeoutMs: 30_000 + bytes.length / 1024,
      },
    )
    if (outcome.kind === 'ok') return { kind: 'created', path: target }
    if (outcome.kind === 'error' && outcome.error.code === 'CONFLICT') continue
    return {
      kind: 'failed',
      message: outcome.kind === 'error' ? outcome.error.message : 'Retrace did not answer in time.',
    }
  }
  return { kind: 'failed', message: `Every name up to "${stem} (${MAX_SUFFIX}).${extension}" is taken.` }
}
