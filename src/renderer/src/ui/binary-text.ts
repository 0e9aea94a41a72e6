/**
 * Bytes as a "binary string" (one char per byte, what `btoa` and some parsers take), built in
 * chunks: spreading a whole large file into `fromCharCode` would overflow the call stack.
 */
export function binaryString(bytes: Uint8Array): string {
  const parts: string[] = []
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)))
  return parts.join('')
}

/** Base64 without `Uint8Array.prototype.toBase64` (older runtimes lack it). */
export function toBase64(bytes: Uint8Array): string {
  return btoa(binaryString(bytes))
}
