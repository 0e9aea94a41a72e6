// The fake model servers must be understood by the real AI SDK providers, or tests built on them prove nothing.
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError, generateText, streamText, tool, type LanguageModel, type TextStreamPart, type ToolSet } from 'ai'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import {
  NO_SCRIPTED_RESPONSE,
  startFakeAnthropic,
  startFakeOpenAI,
  type FakeLlmServer,
  type FakeResponse,
  type FakeServerOptions,
} from './support/fake-llm'

const KEY = 'sk-test-key'

const tools = {
  write: tool({
    description: 'Write a file',
    inputSchema: z.object({ file_path: z.string(), content: z.string() }),
  }),
  read: tool({
    description: 'Read a file',
    inputSchema: z.object({ file_path: z.string() }),
  }),
}

const servers: FakeLlmServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

interface Flavor {
  readonly name: string
  start(script: FakeResponse[], options?: FakeServerOptions): Promise<FakeLlmServer>
  model(server: FakeLlmServer, apiKey?: string): LanguageModel
  /** The tool definitions as they appear in the recorded request body. */
  toolNames(body: Record<string, unknown>): string[]
}

const flavors: Flavor[] = [
  {
    name: 'OpenAI-compatible',
    start: startFakeOpenAI,
    model: (server, apiKey = KEY) =>
      createOpenAICompatible({ name: 'test', baseURL: server.url, apiKey }).chatModel('m'),
    toolNames: (body) => (body.tools as { function: { name: string } }[]).map((t) => t.function.name),
  },
  {
    name: 'Anthropic',
    start: startFakeAnthropic,
    model: (server, apiKey = KEY) => createAnthropic({ baseURL: server.url, apiKey })('claude-x'),
    toolNames: (body) => (body.tools as { name: string }[]).map((t) => t.name),
  },
]

interface Collected {
  readonly parts: TextStreamPart<ToolSet>[]
  /** What iterating `fullStream` threw, if it threw (a dropped connection does that; HTTP errors do not). */
  readonly thrown?: unknown
}

async function collect(model: LanguageModel, options: { abortSignal?: AbortSignal } = {}): Promise<Collected> {
  const result = streamText({
    model,
    maxRetries: 0,
    maxOutputTokens: 1024,
    instructions: 'You are a test.',
    prompt: 'Say hello',
    tools,
    abortSignal: options.abortSignal,
    onError: () => {},
  })
  const parts: TextStreamPart<ToolSet>[] = []
  try {
    for await (const part of result.fullStream) parts.push(part)
  } catch (thrown) {
    return { parts, thrown }
  }
  return { parts }
}

async function streamParts(model: LanguageModel): Promise<TextStreamPart<ToolSet>[]> {
  const collected = await collect(model)
  if ('thrown' in collected) throw collected.thrown
  return collected.parts
}

const textOf = (parts: TextStreamPart<ToolSet>[]) =>
  parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('')
const reasoningOf = (parts: TextStreamPart<ToolSet>[]) =>
  parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])).join('')
const toolCallsOf = (parts: TextStreamPart<ToolSet>[]) =>
  parts.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.toolCallId, name: p.toolName, input: p.input }] : []))
const errorsOf = (parts: TextStreamPart<ToolSet>[]) => parts.flatMap((p) => (p.type === 'error' ? [p.error] : []))
const finishStep = (parts: TextStreamPart<ToolSet>[]) => {
  const step = parts.find((p) => p.type === 'finish-step')
  if (step?.type !== 'finish-step') throw new Error('no finish-step part')
  return step
}

describe.each(flavors)('$name fake', (flavor) => {
  async function start(script: FakeResponse[], options?: FakeServerOptions): Promise<FakeLlmServer> {
    const server = await flavor.start(script, options)
    servers.push(server)
    return server
  }

  test('streams text and reasoning, reports usage, and records what the model was sent', async () => {
    const server = await start([
      {
        kind: 'stream',
        steps: [{ reasoning: 'thinking hard' }, { text: 'Hello, world!' }],
        splitText: 3,
        usage: { input: 42, output: 7 },
      },
    ])
    const parts = await streamParts(flavor.model(server))
    expect(errorsOf(parts)).toEqual([])
    expect(textOf(parts)).toBe('Hello, world!')
    expect(parts.filter((p) => p.type === 'text-delta').length).toBe(5)
    expect(reasoningOf(parts)).toBe('thinking hard')
    const step = finishStep(parts)
    expect(step.finishReason).toBe('stop')
    expect(step.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 })

    expect(server.chatRequests()).toHaveLength(1)
    const req = server.chatRequest()
    expect(req.body.stream).toBe(true)
    expect(flavor.toolNames(req.body).sort()).toEqual(['read', 'write'])
    expect(JSON.stringify(req.body)).toContain('You are a test.')
    expect(JSON.stringify(req.body.messages)).toContain('Say hello')
    expect(server.remaining).toBe(0)
  })

  test('a tool call with arguments split across many chunks arrives parsed', async () => {
    const server = await start([
      {
        kind: 'stream',
        steps: [
          { text: 'Writing.' },
          { toolCalls: [{ id: 'call_1', name: 'write', input: { file_path: 'a.txt', content: 'x "quoted" ✓' } }] },
        ],
        splitArgs: 4,
      },
    ])
    const parts = await streamParts(flavor.model(server))
    expect(errorsOf(parts)).toEqual([])
    expect(textOf(parts)).toBe('Writing.')
    expect(parts.filter((p) => p.type === 'tool-input-delta').length).toBeGreaterThan(5)
    expect(toolCallsOf(parts)).toEqual([
      { id: 'call_1', name: 'write', input: { file_path: 'a.txt', content: 'x "quoted" ✓' } },
    ])
    expect(finishStep(parts).finishReason).toBe('tool-calls')
  })

  test('two tool calls in one response are parallel tool calls', async () => {
    const server = await start([
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'call_a', name: 'read', input: { file_path: 'a.txt' } },
              { id: 'call_b', name: 'write', input: { file_path: 'b.txt', content: 'b' } },
            ],
          },
        ],
        splitArgs: 5,
      },
    ])
    const parts = await streamParts(flavor.model(server))
    expect(errorsOf(parts)).toEqual([])
    expect(toolCallsOf(parts)).toEqual([
      { id: 'call_a', name: 'read', input: { file_path: 'a.txt' } },
      { id: 'call_b', name: 'write', input: { file_path: 'b.txt', content: 'b' } },
    ])
    expect(finishStep(parts).finishReason).toBe('tool-calls')
  })

  test('a wrong key gets 401 as an error part, and the key is recorded', async () => {
    const server = await start([{ kind: 'stream', steps: [{ text: 'never' }] }], { requireKey: KEY })
    const parts = await streamParts(flavor.model(server, 'sk-wrong'))
    const [error] = errorsOf(parts)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).statusCode).toBe(401)
    expect(textOf(parts)).toBe('')
    expect(server.remaining).toBe(1)
    const headers = server.chatRequest().headers
    expect(headers['x-api-key'] ?? headers.authorization).toMatch(/sk-wrong/)

    const ok = await streamParts(flavor.model(server, KEY))
    expect(textOf(ok)).toBe('never')
  })

  test.each([401, 500])('a scripted HTTP %i surfaces as an APICallError part', async (status) => {
    const server = await start([{ kind: 'http-error', status }])
    const [error] = errorsOf(await streamParts(flavor.model(server)))
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).statusCode).toBe(status)
    expect((error as APICallError).message).toBe(status === 401 ? 'Invalid API key' : 'Internal server error')
  })

  test('an empty script fails loudly', async () => {
    const server = await start([])
    const [error] = errorsOf(await streamParts(flavor.model(server)))
    expect((error as APICallError).statusCode).toBe(500)
    expect((error as APICallError).message).toBe(NO_SCRIPTED_RESPONSE)
  })

  test('a stalled stream can be aborted quickly, and close() does not hang', async () => {
    const server = await start([{ kind: 'stall', afterText: 'partial' }])
    const controller = new AbortController()
    const started = Date.now()
    const result = streamText({
      model: flavor.model(server),
      maxRetries: 0,
      maxOutputTokens: 1024,
      prompt: 'hi',
      abortSignal: controller.signal,
      onError: () => {},
    })
    const parts: TextStreamPart<ToolSet>[] = []
    for await (const part of result.fullStream) {
      parts.push(part)
      if (part.type === 'text-delta') setTimeout(() => controller.abort(), 20)
    }
    expect(Date.now() - started).toBeLessThan(2000)
    expect(textOf(parts)).toBe('partial')
    expect(parts.some((p) => p.type === 'abort')).toBe(true)
  })

  test('close() ends a stream the client never aborts: fullStream throws an APICallError', async () => {
    const server = await start([{ kind: 'stall' }])
    const done = collect(flavor.model(server))
    while (server.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setTimeout(r, 20))
    await server.close()
    const { thrown } = await done
    expect(APICallError.isInstance(thrown)).toBe(true)
  })

  test('a mid-stream disconnect makes fullStream throw (not an error part) and can lose buffered text', async () => {
    const server = await start([{ kind: 'disconnect', afterText: 'half', chunkDelayMs: 20 }])
    const { parts, thrown } = await collect(flavor.model(server))
    expect(APICallError.isInstance(thrown)).toBe(true)
    expect((thrown as APICallError).message).toBe('Failed to process successful response')
    expect(errorsOf(parts)).toEqual([])
    expect(parts.some((p) => p.type === 'finish-step')).toBe(false)
  })

  test('a disconnect right after the headers fails as a thrown error or an error part', async () => {
    // Anthropic's doStream waits for the first event, so an early drop becomes an error part there.
    const server = await start([{ kind: 'disconnect' }])
    const { parts, thrown } = await collect(flavor.model(server))
    const failure = thrown ?? errorsOf(parts)[0]
    expect(APICallError.isInstance(failure)).toBe(true)
  })

  test('an in-band stream error surfaces as an error part', async () => {
    const server = await start([{ kind: 'stream-error', afterText: 'half', message: 'Overloaded' }])
    const parts = await streamParts(flavor.model(server))
    expect(textOf(parts)).toBe('half')
    expect(errorsOf(parts).map((e) => (e as Error).message)).toEqual(['Overloaded'])
  })

  test('a slow stream still arrives in order, and a second request consumes the next response', async () => {
    const server = await start([{ kind: 'stream', steps: [{ text: 'one ' }, { text: 'two' }], chunkDelayMs: 10 }])
    server.enqueue({ kind: 'stream', steps: [{ text: 'second' }] })
    expect(textOf(await streamParts(flavor.model(server)))).toBe('one two')
    expect(textOf(await streamParts(flavor.model(server)))).toBe('second')
    expect(server.chatRequests()).toHaveLength(2)
  })

  test('a stream: false request gets a complete JSON answer', async () => {
    const server = await start([
      {
        kind: 'stream',
        steps: [{ text: 'Sure.' }, { toolCalls: [{ id: 'call_9', name: 'read', input: { file_path: 'z.txt' } }] }],
        usage: { input: 3, output: 4 },
      },
    ])
    const result = await generateText({
      model: flavor.model(server),
      maxRetries: 0,
      maxOutputTokens: 1024,
      prompt: 'hi',
      tools,
    })
    expect(result.text).toBe('Sure.')
    expect(result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['call_9', 'read', { file_path: 'z.txt' }],
    ])
    expect(result.finishReason).toBe('tool-calls')
    expect(result.usage).toMatchObject({ inputTokens: 3, outputTokens: 4 })
    expect(server.chatRequest(-1).body.stream).not.toBe(true)
  })

  test('GET /v1/models lists the configured models', async () => {
    const server = await start([], { models: ['alpha', 'beta'], requireKey: KEY })
    const denied = await fetch(`${server.url}/models`)
    expect(denied.status).toBe(401)
    const res = await fetch(`${server.url}/models`, { headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY } })
    const body = (await res.json()) as { data: { id: string; display_name?: string }[] }
    expect(body.data.map((m) => m.id)).toEqual(['alpha', 'beta'])
    if (flavor.name === 'Anthropic')
      expect(body).toMatchObject({ has_more: false, data: [{ type: 'model', display_name: 'Fake alpha' }, {}] })
    else expect(body).toMatchObject({ object: 'list', data: [{ object: 'model' }, { object: 'model' }] })
  })
})
