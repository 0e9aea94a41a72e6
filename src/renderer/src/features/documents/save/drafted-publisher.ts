import type { DraftRecord, DraftStore } from '../../drafts'
import type { BytePublisher } from './byte-publisher'

export interface DraftedPublisher extends BytePublisher {
  /** The person discarded their changes: the stored draft goes too. */
  forget(): Promise<void>
}

/**
 * Puts the durable draft of spec 08 in front of a byte editor's publisher: the exported bytes are
 * stored in the drafts database (the same store, quota and key as text drafts) before they travel,
 * and the draft is removed only when the engine has published exactly that version. A failed or
 * conflicting publish leaves the draft marked so, and the next visit (a reload, a crash, another
 * tab) opens the draft instead of the disk bytes.
 *
 * Decision: a byte editor's draft is written when its merge window closes (the moment it exports),
 * not on every pointer move — exporting a 50 MB PDF per stroke would make the reader unusable. A
 * crash inside that second loses that second. When the store refuses the bytes (quota: 32 drafts /
 * 8 MiB; a larger file never fits), the publish still goes ahead, so the file gets the edit; only
 * the crash safety of that version is missing, and a failure then says so through the banner.
 */
export function draftedPublisher(
  inner: BytePublisher,
  target: { store: () => Promise<DraftStore>; projectId: string; path: string; mime: string; baselineSize: number },
): DraftedPublisher {
  const { projectId, path } = target
  return {
    async saveBytes(bytes, baseline, attempt) {
      const store = await target.store()
      const written = await store.put({
        project_id: projectId,
        path,
        content: { kind: 'bytes', bytes, mime: target.mime },
        baseline_revision: baseline,
        baseline_size: target.baselineSize,
        baseline_mtime: null,
        state: 'dirty',
      })
      const record: DraftRecord | null = written.kind === 'ok' ? written.record : null
      const outcome = await inner.saveBytes(bytes, baseline, attempt)
      if (!record) return outcome
      if (outcome.kind === 'saved') await store.discard(projectId, path, record.updated_at)
      else await store.put({ ...record, state: outcome.kind === 'conflict' ? 'conflict' : 'failed' })
      return outcome
    },
    async forget() {
      await (await target.store()).discard(projectId, path)
    },
  }
}
