import DOMPurify from 'dompurify'
import { openPackage } from '../../../../../../shared/office'

/** A slide's height for `width` from `p:sldSz` (4:3, 16:9 or custom); 16:9 when it cannot be read. */
export async function slideHeight(bytes: Uint8Array, width: number): Promise<number> {
  try {
    const xml = await (await openPackage(bytes)).text('ppt/presentation.xml')
    const size = /<p:sldSz\b[^>]*\bcx="(\d+)"[^>]*\bcy="(\d+)"/.exec(xml)
    const cx = Number(size?.[1])
    const cy = Number(size?.[2])
    if (cx > 0 && cy > 0) return Math.round((width * cy) / cx)
  } catch {
    // fall through to 16:9
  }
  return Math.round((width * 9) / 16)
}

/** The approximate renderer's HTML of one slide, with nothing in it that can act or fetch. */
export function sanitizeSlide(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: [
      'style',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'object',
      'embed',
      'link',
      'meta',
    ],
    // Pictures stay embedded (data: URIs from the package); nothing may be fetched from elsewhere.
    ALLOWED_URI_REGEXP: /^data:image\//i,
  })
}

/**
 * The PDF page LibreOffice gives slide `slide` (1-based): its PDF export leaves hidden slides out,
 * so the page is the slide's place among the shown ones. Null for a hidden or missing slide.
 */
export function pdfPageForSlide(hidden: readonly boolean[], slide: number): number | null {
  if (hidden[slide - 1] !== false) return null
  return hidden.slice(0, slide - 1).filter((isHidden) => !isHidden).length + 1
}
