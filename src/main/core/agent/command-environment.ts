/**
 * The environment an agent's `bash` command runs with (issue 23): the engine's own, minus what
 * would hand the model Retrace's credentials or change how Retrace's own runtime behaves.
 *
 * Decisions:
 * - Removed: every variable a configured provider reads its key from (`key: env{name}`, the
 *   command line's RETRACE_API_KEY), and any other variable holding the same value; the
 *   well-known model-provider key variables (the names Settings suggests providers from and
 *   their siblings), whether or not a provider uses them — a key Retrace could use to pay for
 *   models is never the model's to read; every `RETRACE_*` variable (Retrace's own
 *   configuration: data folder, fault hooks, the browser mode's key); and the variables through
 *   which Electron or a parent Node process steers its children (ELECTRON_RUN_AS_NODE turns any
 *   Electron app the command starts into a bare Node; NODE_CHANNEL_FD / NODE_UNIQUE_ID would make
 *   a child Node open an IPC channel that is not its own).
 * - Kept: everything else, including GITHUB_TOKEN, AWS_*, NPM_TOKEN, SSH_AUTH_SOCK and
 *   NODE_OPTIONS. They are the person's configuration of their own tools, set in the shell that
 *   started Retrace so that `git push`, `npm publish` or `aws s3 ls` work; every command is shown
 *   (and asked for, outside auto mode) before it runs. Telling secrets from settings by name would
 *   break builds unpredictably and still miss most secrets, so only what is Retrace's is removed.
 */

/** Key variables of model providers, removed even when no configured provider names them. */
export const WELL_KNOWN_PROVIDER_KEY_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'OPENROUTER_API_KEY',
  'XAI_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'COHERE_API_KEY',
  'PERPLEXITY_API_KEY',
]

/** Variables through which Electron or a parent Node process would steer a child Node process. */
const RUNTIME_INTERNAL_VARIABLES: readonly string[] = [
  'ELECTRON_RUN_AS_NODE',
  'ELECTRON_NO_ASAR',
  'NODE_CHANNEL_FD',
  'NODE_CHANNEL_SERIALIZATION_MODE',
  'NODE_UNIQUE_ID',
]

const RETRACE_PREFIX = 'RETRACE_'
const MIN_MATCHED_KEY_LENGTH = 8

/** What the configured providers read their keys from, as far as the environment is concerned. */
export interface ProviderKeyVariables {
  /** Names of variables configured providers read a key from. */
  readonly names: readonly string[]
  /** The non-empty values those variables hold in the engine's provider environment. */
  readonly values: readonly string[]
}

export function commandEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  providerKeys: ProviderKeyVariables,
): Record<string, string> {
  const removedNames = new Set([
    ...providerKeys.names,
    ...WELL_KNOWN_PROVIDER_KEY_VARIABLES,
    ...RUNTIME_INTERNAL_VARIABLES,
  ])
  // A key copied into a second variable is still the key. Values shorter than any real key are
  // not matched, so a provider configured with a placeholder such as "x" removes nothing else.
  const removedValues = new Set(providerKeys.values.filter((value) => value.length >= MIN_MATCHED_KEY_LENGTH))
  const environment: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    if (name.startsWith(RETRACE_PREFIX) || removedNames.has(name) || removedValues.has(value)) continue
    environment[name] = value
  }
  return environment
}
