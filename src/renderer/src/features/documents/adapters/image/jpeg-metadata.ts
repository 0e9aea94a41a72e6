import piexif from 'piexifjs'
import { binaryString } from '../../../../ui/binary-text'

/** piexifjs works on "binary strings" (one char per byte). */
const toBinary = binaryString
const fromBinary = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0))

const ORIENTATION = 0x0112
const PIXEL_X = 0xa002
const PIXEL_Y = 0xa003

/**
 * An edited JPEG keeps the original's EXIF (camera, date, exposure, GPS — what the person did not
 * change) instead of losing it to the canvas re-encoding. What the edit made untrue is corrected:
 * the orientation is 1 (the browser drew the picture upright, so the pixels are), the pixel size
 * is the new one, and the embedded thumbnail (the old picture) is dropped.
 *
 * Decision: the ICC profile is not carried over. The canvas draws in sRGB, so the exported pixels
 * are sRGB whatever the original's profile was; re-attaching a wide-gamut profile would shift
 * every colour. EXIF that cannot be read or written again is left out rather than failing the
 * save (the file is then what the canvas wrote, as before).
 */
export function carryExif(
  original: Uint8Array,
  edited: Uint8Array,
  size: { width: number; height: number },
): Uint8Array {
  try {
    const exif = piexif.load(toBinary(original))
    const zeroth = exif['0th'] ?? {}
    const details = exif.Exif ?? {}
    if (
      Object.keys(zeroth).length === 0 &&
      Object.keys(details).length === 0 &&
      Object.keys(exif.GPS ?? {}).length === 0
    )
      return edited
    if (ORIENTATION in zeroth) zeroth[ORIENTATION] = 1
    if (PIXEL_X in details) details[PIXEL_X] = size.width
    if (PIXEL_Y in details) details[PIXEL_Y] = size.height
    const carried = { ...exif, '0th': zeroth, Exif: details, '1st': {}, thumbnail: null }
    return fromBinary(piexif.insert(piexif.dump(carried), toBinary(edited)))
  } catch {
    return edited
  }
}
