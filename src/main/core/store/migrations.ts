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
  {
    name: '002-journal',
    sql: `
      CREATE TABLE workspaces (
        workspace_id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(project_id),
        root TEXT NOT NULL,
        last_sequence INTEGER NOT NULL DEFAULT 0,
        revision INTEGER NOT NULL DEFAULT 0,
        UNIQUE (project_id, root)
      ) STRICT;

      -- One row while a process holds a workspace's mutation lock (a lease, renewed by heartbeat).
      CREATE TABLE workspace_locks (
        workspace_id TEXT PRIMARY KEY REFERENCES workspaces(workspace_id),
        holder_id TEXT NOT NULL,
        holder_pid INTEGER NOT NULL,
        acquired_at_ms INTEGER NOT NULL,
        heartbeat_at_ms INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE transactions (
        transaction_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
        workspace_sequence INTEGER NOT NULL,
        session_id TEXT,
        branch_id TEXT,
        producer_turn_id TEXT,
        origin_turn_id TEXT,
        actor_id TEXT,
        job_id TEXT,
        worktree_id TEXT,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        settled_at_ms INTEGER,
        recovery_detail TEXT,
        UNIQUE (workspace_id, workspace_sequence)
      ) STRICT;
      CREATE INDEX transactions_by_origin_turn ON transactions (origin_turn_id, workspace_sequence);
      CREATE INDEX transactions_by_status ON transactions (status);

      CREATE TABLE file_lineages (
        file_lineage_id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
        current_path TEXT,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX file_lineages_by_path ON file_lineages (workspace_id, current_path)
        WHERE current_path IS NOT NULL;

      CREATE TABLE transaction_files (
        transaction_id TEXT NOT NULL REFERENCES transactions(transaction_id),
        ordinal INTEGER NOT NULL,
        file_lineage_id TEXT NOT NULL REFERENCES file_lineages(file_lineage_id),
        path TEXT NOT NULL,
        old_path TEXT,
        operation TEXT NOT NULL,
        before_state TEXT NOT NULL,
        after_state TEXT NOT NULL,
        stats TEXT NOT NULL,
        diff_state TEXT NOT NULL,
        recoverability TEXT NOT NULL,
        unavailable_reason TEXT,
        PRIMARY KEY (transaction_id, ordinal)
      ) STRICT;
      CREATE INDEX transaction_files_by_lineage ON transaction_files (file_lineage_id);

      -- Mark-and-sweep roots for the content store: a blob lives while any row names it.
      CREATE TABLE blob_refs (
        digest TEXT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        PRIMARY KEY (digest, owner_kind, owner_id)
      ) STRICT;
      CREATE INDEX blob_refs_by_owner ON blob_refs (owner_kind, owner_id);

      CREATE TABLE idempotency_records (
        owner_key TEXT NOT NULL,
        action TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        state TEXT NOT NULL,
        response TEXT,
        created_at_ms INTEGER NOT NULL,
        completed_at_ms INTEGER,
        PRIMARY KEY (owner_key, action, idempotency_key)
      ) STRICT;
    `,
  },
  {
    name: '003-receipts-by-turn',
    sql: `
      -- Equality on (workspace, turn) and order by sequence from one index: a turn's receipts
      -- cost the same on a journal of any length (the sequence index alone would scan).
      DROP INDEX transactions_by_origin_turn;
      CREATE INDEX transactions_by_turn ON transactions (workspace_id, origin_turn_id, workspace_sequence);
    `,
  },
]
