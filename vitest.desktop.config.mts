import { defineConfig } from 'vitest/config'

/** `npm run test:desktop`: the real desktop app under Xvfb (see e2e/desktop/smoke.desktop.ts). */
export default defineConfig({
  test: {
    name: 'desktop',
    include: ['e2e/desktop/**/*.desktop.ts'],
    environment: 'node',
    expect: { poll: { timeout: 10_000 } },
    testTimeout: 120_000,
    hookTimeout: 20 * 60_000,
    fileParallelism: false,
  },
})
