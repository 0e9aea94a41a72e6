import { benchFiles } from './files.bench'

/** `npm run bench`: every figure is a ratio to a baseline measured in this same run (spec 12). */
async function main(): Promise<void> {
  process.stdout.write(`Retrace benchmarks — Node ${process.version}, ${new Date().toISOString()}\n`)
  await benchFiles()
}

void main()
