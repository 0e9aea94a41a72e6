/** Append-only: a shipped migration is never edited, a change is a new entry. */
export const MIGRATIONS: ReadonlyArray<{ name: string; sql: string }> = [
  {
    name: '001-projects',
    sql: `
      CREATE TABLE projects (
        project_id TEXT PRIMARY KEY,
        root TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        last_opened_at_ms INTEGER NOT NULL
      ) STRICT;
    `,
  },
]
