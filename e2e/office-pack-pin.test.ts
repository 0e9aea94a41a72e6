import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { makeDocx } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import { useWorkspace } from './support/workspace'

/**
 * `npm run web` as a person runs it, with no LibreOffice and no pin override: the built host finds
 * this build's own `build/office-pack.json` (its code sits in `out/main/chunks/`, one folder deeper
 * than the lookup once assumed), so the pack is offered with the real pinned size.
 */
const workspace = useWorkspace({
  name: 'office-pack-pin',
  files: async ({ project }) => {
    writeFileSync(join(project, 'letter.docx'), await makeDocx('<w:p><w:r><w:t>A letter</w:t></w:r></w:p>'))
  },
  hostEnv: ({ work }) => ({
    RETRACE_SOFFICE: join(work, 'no-libreoffice-here'),
    RETRACE_OFFICE_BUNDLE: join(work, 'no-bundle.json'),
  }),
})

test('without LibreOffice and without an override, the pack is offered from the build’s own pin', async () => {
  const page = await workspace.newPage({ viewport: { width: 1024, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent('letter.docx')}`)
  const offer = page.getByRole('dialog', { name: 'Show faithful pages without LibreOffice?' })
  await expect.poll(() => offer.count(), { timeout: 30_000 }).toBe(1)
  // The pinned registry tarball: 79 515 284 bytes.
  expect((await offer.textContent()) ?? '').toMatch(/a 7[56](\.\d)? (MiB|MB) download/)
  expect(watch.consoleErrors).toEqual([])
})
