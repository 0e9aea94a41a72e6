/** The part of piexifjs 1.0 (MIT, no bundled types) the JPEG export uses. */
declare module 'piexifjs' {
  type Ifd = Record<number, unknown>
  interface ExifDict {
    '0th'?: Ifd
    Exif?: Ifd
    GPS?: Ifd
    Interop?: Ifd
    '1st'?: Ifd
    thumbnail?: string | null
  }
  const piexif: {
    /** A JPEG (binary string or data URL) → its EXIF, by IFD. */
    load(jpeg: string): ExifDict
    /** EXIF by IFD → the APP1 payload as a binary string. */
    dump(exif: ExifDict): string
    /** Puts an APP1 payload into a JPEG (binary string in, binary string out). */
    insert(exif: string, jpeg: string): string
  }
  export default piexif
}
