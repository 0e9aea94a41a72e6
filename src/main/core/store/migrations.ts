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
  {
    name: '004-history',
    sql: `
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(project_id),
        workspace_id TEXT NOT NULL REFERENCES workspaces(workspace_id),
        title TEXT NOT NULL,
        root_node_id TEXT NOT NULL,
        active_branch_id TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'active',
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_project ON sessions (project_id, updated_at_ms);

      -- The conversation DAG. kind: root | user | assistant. parts: JSON array.
      CREATE TABLE nodes (
        node_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        parent_node_id TEXT REFERENCES nodes(node_id),
        kind TEXT NOT NULL,
        parts TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX nodes_by_parent ON nodes (parent_node_id);
      CREATE INDEX nodes_by_session ON nodes (session_id, created_at_ms);

      CREATE TABLE branches (
        branch_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        parent_branch_id TEXT REFERENCES branches(branch_id),
        fork_checkpoint_id TEXT,
        head_node_id TEXT NOT NULL REFERENCES nodes(node_id),
        head_version INTEGER NOT NULL,
        writer_epoch INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        created_at_ms INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE checkpoints (
        checkpoint_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        branch_id TEXT NOT NULL REFERENCES branches(branch_id),
        boundary TEXT NOT NULL,
        user_node_id TEXT NOT NULL REFERENCES nodes(node_id),
        assistant_node_id TEXT REFERENCES nodes(node_id),
        journal_sequence INTEGER NOT NULL,
        workspace_revision INTEGER NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX checkpoints_by_node ON checkpoints (user_node_id, boundary);

      -- One row per finished turn (and per actor): what its turn card and Review group by. The
      -- summary is stored so a transcript never queries receipts per message.
      CREATE TABLE change_sets (
        change_set_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        branch_id TEXT NOT NULL REFERENCES branches(branch_id),
        producer_turn_id TEXT NOT NULL,
        origin_turn_id TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        transaction_ids TEXT NOT NULL,
        summary TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX change_sets_by_origin ON change_sets (origin_turn_id);
    `,
  },
  {
    name: '005-restore-intents',
    sql: `
      -- A confirmed restore (undo, redo, revert, reapply): what was asked, the plan it was checked
      -- against, and the journal transaction that carries its per-file expected/target states.
      CREATE TABLE restore_intents (
        intent_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        turn_id TEXT NOT NULL,
        operation TEXT NOT NULL,
        plan_hash TEXT NOT NULL,
        transaction_id TEXT,
        status TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        settled_at_ms INTEGER
      ) STRICT;
      CREATE INDEX restore_intents_by_session ON restore_intents (session_id, created_at_ms);
      CREATE INDEX restore_intents_by_turn ON restore_intents (turn_id, created_at_ms);
    `,
  },
  {
    name: '006-publish-states',
    sql: `
      -- Per file of a transaction: pending → applied (with the digest it now holds) → verified, or
      -- rolled_back. Written around each replacement so recovery reads what was done.
      ALTER TABLE transaction_files ADD COLUMN publish_state TEXT NOT NULL DEFAULT 'pending';
      ALTER TABLE transaction_files ADD COLUMN applied_digest TEXT;
    `,
  },
  {
    name: '007-blob-retention',
    sql: `
      -- Set when retention released this transaction's recovery blobs: its Review stays readable
      -- from metadata, a code restore through it answers UNAVAILABLE (reason expired).
      ALTER TABLE transactions ADD COLUMN blobs_expired INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    name: '008-agent',
    sql: `
      ALTER TABLE sessions ADD COLUMN permission_mode TEXT NOT NULL DEFAULT 'ask';
      -- Parts of a running turn, one row each, rewritten on every transition (spec 05): a crash
      -- leaves exactly what was announced. Finalize moves them into nodes.parts.
      CREATE TABLE turn_parts (
        node_id TEXT NOT NULL REFERENCES nodes(node_id),
        idx INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (node_id, idx)
      ) STRICT;
      -- What the agent last read of a path in a session: the baseline its writes are checked against.
      CREATE TABLE agent_reads (
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        path TEXT NOT NULL,
        digest TEXT,
        read_at_ms INTEGER NOT NULL,
        PRIMARY KEY (session_id, path)
      ) STRICT;
      -- "Always allow this command in this session".
      CREATE TABLE session_allowed_commands (
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        command TEXT NOT NULL,
        PRIMARY KEY (session_id, command)
      ) STRICT;
      -- Model providers. A key is never stored in clear: either the name of an environment
      -- variable, or ciphertext from the desktop shell's safeStorage.
      CREATE TABLE providers (
        provider_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        base_url TEXT NOT NULL,
        model TEXT NOT NULL,
        key_source TEXT NOT NULL,
        key_ciphertext BLOB,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
    `,
  },
  {
    name: '009-session-titles',
    sql: `
      -- 0 while the title is the placeholder given at creation: the first prompt names the session.
      ALTER TABLE sessions ADD COLUMN titled INTEGER NOT NULL DEFAULT 1;
      UPDATE sessions SET titled = 0 WHERE title = 'New session';
    `,
  },
  {
    name: '010-file-history',
    sql: `
      -- What each human file operation was, written in the SQLite transaction that prepares it:
      -- File History labels versions by it and merges one editing session's saves.
      CREATE TABLE human_operations (
        transaction_id TEXT PRIMARY KEY REFERENCES transactions(transaction_id),
        action TEXT NOT NULL,
        edit_session_id TEXT,
        restored_version_id TEXT
      ) STRICT;
      -- A path's history when no lineage sits at it any more (the file was deleted).
      CREATE INDEX transaction_files_by_path ON transaction_files (path);
    `,
  },
  {
    name: '011-rewind-branches',
    sql: `
      -- Which conversation node's code the workspace holds when it is not the active head
      -- (spec 04 alignment): NULL = aligned with the active branch's head.
      ALTER TABLE sessions ADD COLUMN files_node_id TEXT;
      -- aligned | mismatch (the next turn waits for Keep / Restore) | code_rewound (a banner only)
      ALTER TABLE sessions ADD COLUMN alignment TEXT NOT NULL DEFAULT 'aligned';
      -- The checkpoint a code-only rewind went to (for its banner).
      ALTER TABLE sessions ADD COLUMN alignment_checkpoint_id TEXT;
      -- Where a branch left its parent (its first head), and the workspace sequence at which the
      -- files last held this branch's head before they moved away (its code projection).
      ALTER TABLE branches ADD COLUMN fork_node_id TEXT;
      ALTER TABLE branches ADD COLUMN left_sequence INTEGER;
      -- Multi-turn restores: the mode, the source and target branch, and the branch effects the
      -- intent applies once its files verify (JSON), re-applied by start-up recovery if needed.
      ALTER TABLE restore_intents ADD COLUMN mode TEXT;
      ALTER TABLE restore_intents ADD COLUMN source_branch_id TEXT;
      ALTER TABLE restore_intents ADD COLUMN target_branch_id TEXT;
      ALTER TABLE restore_intents ADD COLUMN effects TEXT;
      ALTER TABLE restore_intents ADD COLUMN effects_applied INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX restore_intents_by_status ON restore_intents (status);
      CREATE INDEX branches_by_session ON branches (session_id, created_at_ms);
    `,
  },
  {
    name: '012-agent-command-groups',
    sql: `
      -- Issue 23: the process group of every agent command, written before the command may run,
      -- with the engine process that started it. Start-up recovery ends the groups a dead engine
      -- left running; leader_identity (boot id + start time) and the marker in the command's
      -- environment keep a reused pid from ever being signalled.
      CREATE TABLE agent_command_groups (
        pgid INTEGER NOT NULL,
        leader_identity TEXT NOT NULL,
        marker TEXT NOT NULL,
        owner_pid INTEGER NOT NULL,
        owner_identity TEXT NOT NULL,
        session_id TEXT,
        turn_id TEXT,
        call_id TEXT NOT NULL,
        command TEXT NOT NULL,
        started_at_ms INTEGER NOT NULL,
        PRIMARY KEY (pgid, marker)
      ) STRICT;
    `,
  },
  {
    name: '013-snapshot-command-windows',
    sql: `
      -- Issue 23: when each step's commands ran, on which shadow repository, between which two
      -- trees and workspace sequences. A step's changes are credited to its commands only where no
      -- journaled write, earlier change or other session's overlapping command explains them.
      CREATE TABLE snapshot_command_windows (
        turn_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        git_dir TEXT NOT NULL,
        session_id TEXT NOT NULL,
        -- The tree just before the commands were let run (NULL: that capture failed).
        from_hash TEXT,
        from_sequence INTEGER NOT NULL,
        started_at_ms INTEGER NOT NULL,
        -- The tree once the step's tools finished (NULL while they run, or when that capture failed).
        to_hash TEXT,
        ended_at_ms INTEGER,
        PRIMARY KEY (turn_id, step)
      ) STRICT;
      CREATE INDEX snapshot_command_windows_by_shadow ON snapshot_command_windows (git_dir, started_at_ms);
    `,
  },
  {
    name: '014-transaction-folders',
    sql: `
      -- The folders a transaction creates (missing parents of its files, and directories it makes),
      -- root-relative, written with its prepared row: an Undo removes those its turn made once they
      -- are empty, and recovery removes them when it rolls the transaction back.
      CREATE TABLE transaction_folders (
        transaction_id TEXT NOT NULL REFERENCES transactions(transaction_id),
        path TEXT NOT NULL,
        PRIMARY KEY (transaction_id, path)
      ) STRICT, WITHOUT ROWID;
    `,
  },
]
