import { describe, expect, test } from 'vitest'
import { en } from './en'
import { detectLocale, formatBytes, translator } from './index'
import { zhCN } from './zh-CN'

describe('i18n', () => {
  test('follows the system language: any Chinese variant picks Simplified Chinese, else English', () => {
    expect(detectLocale(['zh-TW', 'en'])).toBe('zh-CN')
    expect(detectLocale(['de-DE', 'en-US'])).toBe('en')
  })

  test('fills named parameters and leaves unknown ones visible', () => {
    expect(translator('en')('explorer.more', { shown: 100, total: 154 })).toBe('Show more (100 of 154)')
    expect(translator('zh-CN')('explorer.more', { shown: 100, total: 154 })).toBe('显示更多（100 / 154）')
    expect(translator('en')('explorer.more', { shown: 1 })).toBe('Show more (1 of {total})')
  })

  test('both catalogues use the same parameters in every message', () => {
    const params = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    for (const key of Object.keys(en) as Array<keyof typeof en>) expect(params(zhCN[key])).toEqual(params(en[key]))
  })

  test('sizes are shown in binary units', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1536)).toBe('1.5 KiB')
    expect(formatBytes(64 * 1024 * 1024 + 1)).toBe('64 MiB')
  })
})
