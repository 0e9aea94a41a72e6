import { defineConfig } from 'vitest/config'

/**
 * The unit project is pure and in-process: a test belongs there when it starts no child process
 * (git, mkfifo, a crash child, LibreOffice), opens no SQLite database (the core, the journal
 * fixture, the store) and listens on or connects to no socket. Scratch files in a temp folder are
 * fine. Tests beside the code (src/) that do any of those run in `integration` with everything
 * under test/; test/unit/ holds the cross-cutting tests that are pure (docs drift, this split).
 * test/unit/test-projects.test.ts fails when a unit-project file starts to do one of those, so
 * the list below cannot go stale silently.
 */
export const INTEGRATION_TESTS_IN_SRC = [
  'src/main/core/agent/tools/agent-tools.test.ts', // git
  'src/main/core/changes/fold.test.ts', // journal fixture (SQLite)
  'src/main/core/conversation/conversation.test.ts', // the core (SQLite)
  'src/main/core/conversation/retention.test.ts', // the core
  'src/main/core/core.test.ts', // the core, git
  'src/main/core/files/operations.test.ts', // the core, SQLite
  'src/main/core/git/runner.test.ts', // git
  'src/main/core/journal/apply-patch.test.ts', // journal fixture
  'src/main/core/journal/mutators.test.ts', // journal fixture
  'src/main/core/platform/small-file.test.ts', // mkfifo
  'src/main/core/restore/restore.test.ts', // the core
  'src/main/core/snapshot/snapshot.test.ts', // git
  'src/main/core/store/database.test.ts', // SQLite
  'src/main/core/store/storage-errors.test.ts', // SQLite
  'src/main/core/store/store.test.ts', // SQLite, lock-holder children
  'src/main/core/watch/watch.test.ts', // the core, git
  'src/main/web/server-limits.test.ts', // HTTP + WebSocket
  'src/main/web/server.test.ts', // HTTP + WebSocket
]

export const UNIT_INCLUDE = ['src/**/*.test.{ts,tsx}', 'test/unit/**/*.test.ts']
export const INTEGRATION_INCLUDE = [...INTEGRATION_TESTS_IN_SRC, 'test/**/*.test.ts']

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: UNIT_INCLUDE,
          exclude: INTEGRATION_TESTS_IN_SRC,
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION_INCLUDE,
          exclude: ['test/unit/**'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          // A shared 2-core machine: what a person sees may take a few seconds; polls wait for it.
          expect: { poll: { timeout: 10_000 } },
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
