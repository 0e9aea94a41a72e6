import type { Database } from '../store'
import { sessionBranches } from './branches'
import { sessionSummaries } from './change-sets'
import { sessionNodes } from './nodes'
import { runningParts } from './turn-parts'
import type { BranchRecord, NodeRecord, Part, SessionRecord } from './types'

/** Every node of the session with its parts, and each finished turn's stored summary. */
export function transcript(db: Database, session: SessionRecord): { branches: BranchRecord[]; nodes: NodeRecord[] } {
  const summaries = sessionSummaries(db, session.session_id)
  const nodes = sessionNodes(db, session.session_id).map((row): NodeRecord => {
    const summary = summaries.get(row.node_id)
    const parts = row.status === 'running' ? runningParts(db, row.node_id) : (JSON.parse(row.parts) as Part[])
    return { ...row, parts, ...(summary ? { summary } : {}) }
  })
  return { branches: sessionBranches(db, session.session_id), nodes }
}
