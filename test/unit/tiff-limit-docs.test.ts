import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { en } from '../../src/renderer/src/i18n/en'
import { zhCN } from '../../src/renderer/src/i18n/zh-CN'

const repo = join(__dirname, '..', '..')

/** The TIFF viewer's pixel limit, as the worker enforces it (a worker module is not importable under Node). */
function enforcedMegapixels(): number {
  const source = readFileSync(join(repo, 'src/renderer/src/features/documents/adapters/tiff/tiff.worker.ts'), 'utf8')
  const match = /const MAX_PIXELS = ([\d_]+)/.exec(source)
  if (!match?.[1]) throw new Error('MAX_PIXELS not found in tiff.worker.ts')
  return Number(match[1].replaceAll('_', '')) / 1_000_000
}

test('the TIFF page limit the view states (English, Chinese) and docs/images.md states is the one the worker enforces', () => {
  const limit = enforcedMegapixels()
  expect(en['tiff.tooLarge']).toContain(`pages over ${limit} megapixels are not decoded`)
  expect(zhCN['tiff.tooLarge']).toContain(`超过 ${limit * 100} 万像素`)
  const doc = readFileSync(join(repo, 'docs', 'images.md'), 'utf8')
  const stated = [...doc.matchAll(/TIFF[\s\S]{0,200}?pages over (\d+) megapixels are not decoded/g)].map((m) =>
    Number(m[1]),
  )
  expect(stated).toEqual([limit])
})
