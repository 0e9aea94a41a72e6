import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { startFakeOpenAI, type FakeLlmServer, type FakeResponse } from './fake-llm'
import { tempDir } from './temp'

export interface ScriptedToolCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/**
 * A loopback model that makes the given tool calls, one step per model response, then closes with
 * a text; the server is closed when the calling test ends.
 */
export async function scriptedModel(...steps: ScriptedToolCall[][]): Promise<FakeLlmServer> {
  const llm = await startFakeOpenAI()
  onTestFinished(() => llm.close())
  const responses: FakeResponse[] = steps.map((toolCalls) => ({ kind: 'stream', steps: [{ toolCalls }] }))
  llm.enqueue(...responses, { kind: 'stream', steps: [{ text: 'done' }] })
  return llm
}

/** A temporary project folder holding `files` (name → content) at its top. */
export function projectWith(files: Record<string, Uint8Array | string>, prefix = 'retrace-docs-'): string {
  const root = tempDir(prefix)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content)
  return root
}
