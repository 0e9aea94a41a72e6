/**
 * The whole environment a git process gets (issue 23 item 19). Nothing of Retrace's own
 * environment crosses except what git needs to run and to find the person's own configuration:
 * API keys, tokens, `GIT_DIR`/`GIT_INDEX_FILE` left by a hook that started Retrace, `GIT_SSH_COMMAND`,
 * `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_PARAMETERS`… never reach git or anything git starts.
 *
 * HOME and XDG_CONFIG_HOME stay: the person's global config is read as data (core.excludesFile,
 * core.attributesFile, core.autocrlf, safe.directory make Retrace's answers the same as their own
 * git's); every setting in it that would run a program is neutralised like the repository's.
 */
const PASSED = [
  'PATH',
  'HOME',
  'XDG_CONFIG_HOME',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'TMPDIR',
]

/** What git for Windows needs to start at all and to find the home folder. */
const PASSED_ON_WINDOWS = ['SYSTEMROOT', 'WINDIR', 'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH', 'PATHEXT', 'TEMP', 'TMP']

/**
 * Fixed for every run, after the caller's variables (so no caller can undo them): no prompt, no
 * pager, no editor, no askpass program, no optional index writes, and no transport at all — an
 * empty `GIT_ALLOW_PROTOCOL` refuses every protocol, which also stops a partial clone's lazy
 * fetch (with its ssh command, remote helper or `ext::` command) when a missing object is read.
 */
const FIXED: Readonly<Record<string, string>> = {
  LC_ALL: 'C',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  GIT_EDITOR: ':',
  GIT_ASKPASS: '',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_ALLOW_PROTOCOL: '',
  GIT_PROTOCOL_FROM_USER: '0',
}

/**
 * The environment of one git run: the passed variables, then the caller's own (`GIT_INDEX_FILE`
 * of the shadow repository, `GIT_LITERAL_PATHSPECS`), then the fixed ones, then the configuration
 * overrides as `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` (git 2.31+, which `--path-format` already
 * needs): unlike `-c key=value` they carry any driver name, `=` included, and git hands them on to
 * every git it starts (a submodule's status).
 */
export function gitEnvironment(
  callerEnv: Readonly<Record<string, string>> | undefined,
  config: ReadonlyArray<readonly [string, string]>,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of process.platform === 'win32' ? [...PASSED, ...PASSED_ON_WINDOWS] : PASSED) {
    const value = from[name]
    if (value !== undefined) env[name] = value
  }
  Object.assign(env, callerEnv, FIXED)
  env.GIT_CONFIG_COUNT = String(config.length)
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key
    env[`GIT_CONFIG_VALUE_${index}`] = value
  })
  return env
}
