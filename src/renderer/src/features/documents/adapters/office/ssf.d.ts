/** The part of SheetJS SSF 0.11 (Apache-2.0, no bundled types) the sheet grid uses. */
declare module 'ssf' {
  const SSF: {
    /** A value in a spreadsheet number format: a format code, or a built-in format's id. */
    format(format: string | number, value: number, options?: { date1904?: boolean }): string
  }
  export default SSF
}
