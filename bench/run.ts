import { benchFiles } from './files.bench'
import { benchJournal } from './journal.bench'
import { benchOffice } from './office.bench'
import { benchOfficePack } from './office-pack.bench'
import { benchRestore } from './restore.bench'
import { benchReview } from './review.bench'
import { benchRewind } from './rewind.bench'
import { benchWorkspaceReview } from './workspace-review.bench'
import { benchSearch } from './search.bench'
import { benchContentSearch } from './content-search.bench'
import { benchSnapshotSmall, benchSnapshots } from './snapshot.bench'
import { benchXlsxGrid } from './xlsx-grid.bench'

/** `npm run bench`: every figure is a ratio to a baseline measured in this same run (spec 12). */
async function main(): Promise<void> {
  process.stdout.write(`Retrace benchmarks — Node ${process.version}, ${new Date().toISOString()}\n`)
  await benchJournal()
  await benchRestore()
  await benchRewind()
  await benchFiles()
  await benchReview()
  await benchWorkspaceReview()
  await benchSearch()
  await benchContentSearch()
  await benchSnapshotSmall()
  await benchSnapshots()
  await benchOffice()
  await benchOfficePack()
  await benchXlsxGrid()
}

void main()
