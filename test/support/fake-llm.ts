// Loopback fake model servers speaking the real OpenAI chat-completions and Anthropic messages wire protocols, so
// integration tests can drive the real AI SDK providers (and the agent loop on top of them) without a network.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, type Socket } from 'node:net'

/** One tool call the fake model makes. `input` is JSON-encoded; `rawArguments` sends a literal string instead. */
export interface FakeToolCall {
  readonly id: string
  readonly name: string
  readonly input?: unknown
  /** Sent verbatim as the arguments JSON (e.g. invalid JSON to exercise input-repair / tool-error paths). */
  readonly rawArguments?: string
}

/** One piece of model output, in order. Several tool calls in one step are parallel tool calls. */
export type FakeStep =
  { readonly text: string } | { readonly reasoning: string } | { readonly toolCalls: readonly FakeToolCall[] }

export interface FakeUsage {
  readonly input: number
  readonly output: number
}

/** Protocol-neutral finish reason, mapped to `stop`/`tool_calls`/`length` or `end_turn`/`tool_use`/`max_tokens`. */
export type FakeFinish = 'stop' | 'tool-calls' | 'length'

interface Timed {
  /** Pause before every SSE event (simulates a slow model). */
  readonly chunkDelayMs?: number
}

/** A normal streamed answer (or a complete JSON answer if the client asked for `stream: false`). */
export interface FakeStreamResponse extends Timed {
  readonly kind: 'stream'
  readonly steps: readonly FakeStep[]
  /** Split each tool call's arguments JSON into pieces of this many characters (default: one piece). */
  readonly splitArgs?: number
  /** Split text / reasoning into deltas of this many characters (default: one delta per step). */
  readonly splitText?: number
  /** Default: `tool-calls` if any step has tool calls, else `stop`. */
  readonly finish?: FakeFinish
  /** Default `{ input: 10, output: 5 }`. `null` omits the OpenAI usage chunk (Anthropic always reports usage). */
  readonly usage?: FakeUsage | null
}

/** An HTTP error status with the protocol's realistic JSON error body (or `body`, verbatim if a string). */
export interface FakeHttpErrorResponse {
  readonly kind: 'http-error'
  readonly status: number
  readonly body?: unknown
  /** Message placed in the default error body. */
  readonly message?: string
}

/** Sends headers (and `afterText`, if any) and then nothing more until the client disconnects or close(). */
export interface FakeStallResponse extends Timed {
  readonly kind: 'stall'
  readonly afterText?: string
}

/** Starts streaming (optionally some text) and then destroys the socket mid-stream. */
export interface FakeDisconnectResponse extends Timed {
  readonly kind: 'disconnect'
  readonly afterText?: string
}

/** Starts streaming (optionally some text) and then sends an in-band SSE error (e.g. Anthropic `overloaded_error`). */
export interface FakeStreamErrorResponse extends Timed {
  readonly kind: 'stream-error'
  readonly afterText?: string
  readonly message?: string
}

export type FakeResponse =
  FakeStreamResponse | FakeHttpErrorResponse | FakeStallResponse | FakeDisconnectResponse | FakeStreamErrorResponse

export interface RecordedRequest {
  readonly method: string
  /** Path including any query string, e.g. `/v1/chat/completions`. */
  readonly path: string
  /** Lower-cased header names, as Node delivers them (`authorization`, `x-api-key`, `anthropic-version`...). */
  readonly headers: IncomingHttpHeaders
  /** The parsed JSON body; `{}` when the body is empty or not a JSON object. */
  readonly body: Record<string, unknown>
  readonly rawBody: string
}

export interface FakeServerOptions {
  /** If set, requests without this key (`Authorization: Bearer` / `x-api-key`) get a 401. */
  readonly requireKey?: string
  /** Model ids listed by `GET /v1/models`. */
  readonly models?: readonly string[]
}

export interface FakeLlmServer {
  /** Base URL to give the provider: `http://127.0.0.1:PORT/v1`. */
  readonly url: string
  readonly port: number
  /** Every request received, in order (including 401s and model listings). */
  readonly requests: readonly RecordedRequest[]
  /** Only the requests to the chat endpoint. */
  chatRequests(): RecordedRequest[]
  /** The chat request at `index` (negative counts from the end: -1 is the latest); throws if there is none. */
  chatRequest(index?: number): RecordedRequest
  /** Appends responses to the script; each chat request consumes the next one. */
  enqueue(...responses: FakeResponse[]): void
  /** Scripted responses not yet consumed. */
  readonly remaining: number
  /** Stops listening and destroys every open socket (stalled streams included). */
  close(): Promise<void>
}

export const NO_SCRIPTED_RESPONSE = 'fake-llm: no scripted response'

export function startFakeOpenAI(
  script: readonly FakeResponse[] = [],
  options: FakeServerOptions = {},
): Promise<FakeLlmServer> {
  return startFake(openAI, script, options)
}

export function startFakeAnthropic(
  script: readonly FakeResponse[] = [],
  options: FakeServerOptions = {},
): Promise<FakeLlmServer> {
  return startFake(anthropic, script, options)
}

// ---------------------------------------------------------------------------------------------------------------
// Protocol-independent server

interface Sse {
  /** Writes one SSE event; a no-op once the client is gone. */
  send(data: unknown, event?: string): Promise<void>
  readonly closed: boolean
  /** Resolves when the client disconnects (or close() destroys the socket). */
  readonly gone: Promise<void>
}

interface Protocol {
  readonly chatPath: string
  readonly defaultModels: readonly string[]
  authorized(headers: IncomingHttpHeaders, key: string): boolean
  errorBody(status: number, message: string): unknown
  errorHeaders?(): Record<string, string>
  models(ids: readonly string[]): unknown
  /** Everything of a streamed answer up to (and including) `afterText`, used by stall / disconnect / stream-error. */
  streamPrefix(sse: Sse, model: string, afterText: string | undefined): Promise<void>
  streamError(sse: Sse, message: string): Promise<void>
  stream(sse: Sse, model: string, response: FakeStreamResponse): Promise<void>
  json(model: string, response: FakeStreamResponse): unknown
}

async function startFake(
  protocol: Protocol,
  script: readonly FakeResponse[],
  options: FakeServerOptions,
): Promise<FakeLlmServer> {
  const queue: FakeResponse[] = [...script]
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, protocol.errorBody(500, `fake-llm: ${String(error)}`))
      else res.destroy()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks).toString('utf8')
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: parseObject(rawBody),
      rawBody,
    }
    requests.push(recorded)
    const path = recorded.path.split('?')[0]

    const isChat = recorded.method === 'POST' && path === protocol.chatPath
    const isModels = recorded.method === 'GET' && path === '/v1/models'
    if (!isChat && !isModels) {
      sendJson(res, 404, protocol.errorBody(404, `fake-llm: no route for ${recorded.method} ${recorded.path}`))
      return
    }
    if (options.requireKey !== undefined && !protocol.authorized(req.headers, options.requireKey)) {
      sendJson(res, 401, protocol.errorBody(401, 'Invalid API key'), protocol.errorHeaders?.())
      return
    }
    if (isModels) {
      sendJson(res, 200, protocol.models(options.models ?? protocol.defaultModels))
      return
    }

    const next = queue.shift()
    if (next === undefined) {
      sendJson(res, 500, protocol.errorBody(500, NO_SCRIPTED_RESPONSE), protocol.errorHeaders?.())
      return
    }
    const model = typeof recorded.body.model === 'string' ? recorded.body.model : 'fake-model'
    const streaming = recorded.body.stream === true

    if (next.kind === 'http-error') {
      const body = next.body ?? protocol.errorBody(next.status, next.message ?? defaultErrorMessage(next.status))
      if (typeof body === 'string') {
        res.writeHead(next.status, { 'content-type': 'application/json', ...protocol.errorHeaders?.() })
        res.end(body)
      } else sendJson(res, next.status, body, protocol.errorHeaders?.())
      return
    }
    if (!streaming) {
      // A `stream: false` client gets a complete JSON answer, or the non-streaming analogue of the failure.
      if (next.kind === 'stream') sendJson(res, 200, protocol.json(model, next))
      else if (next.kind === 'stream-error')
        sendJson(res, 500, protocol.errorBody(500, next.message ?? 'Overloaded'), protocol.errorHeaders?.())
      else if (next.kind === 'disconnect') res.destroy()
      else await new Promise<void>((resolve) => res.on('close', () => resolve()))
      return
    }

    const sse = openSse(res, next.chunkDelayMs ?? 0)
    switch (next.kind) {
      case 'stream':
        await protocol.stream(sse, model, next)
        res.end()
        return
      case 'stall':
        await protocol.streamPrefix(sse, model, next.afterText)
        await sse.gone
        return
      case 'disconnect':
        await protocol.streamPrefix(sse, model, next.afterText)
        res.destroy()
        return
      case 'stream-error':
        await protocol.streamPrefix(sse, model, next.afterText)
        await protocol.streamError(sse, next.message ?? 'Overloaded')
        res.end()
        return
    }
  }

  const chatRequests = () => requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === protocol.chatPath)

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests,
    chatRequest(index = 0) {
      const found = chatRequests().at(index)
      if (found === undefined) throw new Error(`fake-llm: no chat request #${index} (got ${chatRequests().length})`)
      return found
    },
    enqueue: (...responses) => void queue.push(...responses),
    get remaining() {
      return queue.length
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
}

function openSse(res: ServerResponse, delayMs: number): Sse {
  let closed = false
  let markGone: () => void = () => {}
  const gone = new Promise<void>((resolve) => (markGone = resolve))
  const onClose = () => {
    closed = true
    markGone()
  }
  // 'close' also fires when the client drops the connection (abort) or close() destroys the socket.
  res.on('close', onClose)
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.flushHeaders()
  return {
    get closed() {
      return closed
    },
    gone,
    async send(data, event) {
      if (delayMs > 0) await sleep(delayMs)
      if (closed) return
      const payload = typeof data === 'string' ? data : JSON.stringify(data)
      res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`)
    },
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function defaultErrorMessage(status: number): string {
  if (status === 401) return 'Invalid API key'
  if (status === 403) return 'Permission denied'
  if (status === 404) return 'Model not found'
  if (status === 429) return 'Rate limit exceeded'
  if (status === 529) return 'Overloaded'
  if (status >= 500) return 'Internal server error'
  return 'Invalid request'
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** `text` in pieces of `size` characters; the whole text if size is absent. Never empty. */
function pieces(text: string, size: number | undefined): string[] {
  if (size === undefined || size <= 0 || text.length <= size) return [text]
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function argumentsOf(call: FakeToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.input ?? {})
}

function finishOf(response: FakeStreamResponse): FakeFinish {
  return (
    response.finish ?? (response.steps.some((s) => 'toolCalls' in s && s.toolCalls.length > 0) ? 'tool-calls' : 'stop')
  )
}

const DEFAULT_USAGE: FakeUsage = { input: 10, output: 5 }
let counter = 0
const nextId = (prefix: string) => `${prefix}${(++counter).toString().padStart(6, '0')}`

// ---------------------------------------------------------------------------------------------------------------
// OpenAI chat completions

const OPENAI_FINISH: Record<FakeFinish, string> = { stop: 'stop', 'tool-calls': 'tool_calls', length: 'length' }

const OPENAI_ERROR_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
}

const openAI: Protocol = {
  chatPath: '/v1/chat/completions',
  defaultModels: ['fake-model'],
  authorized: (headers, key) => headers.authorization === `Bearer ${key}`,
  errorBody(status, message) {
    const [type, code] = OPENAI_ERROR_TYPES[status] ?? ['server_error', null]
    return { error: { message, type, param: null, code } }
  },
  models: (ids) => ({
    object: 'list',
    data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake-llm' })),
  }),
  async streamPrefix(sse, model, afterText) {
    const chunk = openAIChunker(nextId('chatcmpl-fake'), model)
    await sse.send(chunk({ role: 'assistant', content: '' }))
    if (afterText !== undefined) await sse.send(chunk({ content: afterText }))
  },
  async streamError(sse, message) {
    await sse.send({ error: { message, type: 'server_error', param: null, code: null } })
  },
  async stream(sse, model, response) {
    const chunk = openAIChunker(nextId('chatcmpl-fake'), model)
    await sse.send(chunk({ role: 'assistant', content: '' }))
    let toolIndex = 0
    for (const step of response.steps) {
      if ('text' in step) {
        for (const piece of pieces(step.text, response.splitText)) await sse.send(chunk({ content: piece }))
      } else if ('reasoning' in step) {
        for (const piece of pieces(step.reasoning, response.splitText))
          await sse.send(chunk({ reasoning_content: piece }))
      } else {
        for (const call of step.toolCalls) {
          const index = toolIndex++
          await sse.send(
            chunk({
              tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
            }),
          )
          for (const piece of pieces(argumentsOf(call), response.splitArgs))
            await sse.send(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
        }
      }
    }
    await sse.send(chunk({}, OPENAI_FINISH[finishOf(response)]))
    const usage = response.usage === undefined ? DEFAULT_USAGE : response.usage
    if (usage !== null) await sse.send({ ...chunk({}), choices: [], usage: openAIUsage(usage) })
    await sse.send('[DONE]')
  },
  json(model, response) {
    const text = response.steps.flatMap((s) => ('text' in s ? [s.text] : [])).join('')
    const reasoning = response.steps.flatMap((s) => ('reasoning' in s ? [s.reasoning] : [])).join('')
    const toolCalls = response.steps.flatMap((s) => ('toolCalls' in s ? s.toolCalls : []))
    const usage = response.usage === undefined ? DEFAULT_USAGE : response.usage
    return {
      id: nextId('chatcmpl-fake'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text.length > 0 ? text : null,
            ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
            ...(toolCalls.length > 0
              ? {
                  tool_calls: toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: argumentsOf(c) },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: OPENAI_FINISH[finishOf(response)],
        },
      ],
      ...(usage !== null ? { usage: openAIUsage(usage) } : {}),
    }
  },
}

function openAIChunker(id: string, model: string) {
  const created = Math.floor(Date.now() / 1000)
  return (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })
}

function openAIUsage(usage: FakeUsage) {
  return { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output }
}

// ---------------------------------------------------------------------------------------------------------------
// Anthropic messages

const ANTHROPIC_FINISH: Record<FakeFinish, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

const anthropic: Protocol = {
  chatPath: '/v1/messages',
  defaultModels: ['claude-fake'],
  authorized: (headers, key) => headers['x-api-key'] === key || headers.authorization === `Bearer ${key}`,
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message },
  }),
  errorHeaders: () => ({ 'request-id': nextId('req_fake') }),
  models: (ids) => ({
    data: ids.map((id) => ({ id, type: 'model', display_name: `Fake ${id}`, created_at: '2025-01-01T00:00:00Z' })),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids[ids.length - 1] ?? null,
  }),
  async streamPrefix(sse, model, afterText) {
    await anthropicStart(sse, model, DEFAULT_USAGE)
    if (afterText !== undefined) {
      await sse.send(
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        'content_block_start',
      )
      await sse.send(
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: afterText } },
        'content_block_delta',
      )
    }
  },
  async streamError(sse, message) {
    await sse.send({ type: 'error', error: { type: 'overloaded_error', message } }, 'error')
  },
  async stream(sse, model, response) {
    const usage = response.usage ?? DEFAULT_USAGE
    await anthropicStart(sse, model, usage)
    let index = 0
    const block = async (contentBlock: unknown, deltas: readonly unknown[]) => {
      await sse.send({ type: 'content_block_start', index, content_block: contentBlock }, 'content_block_start')
      for (const delta of deltas) await sse.send({ type: 'content_block_delta', index, delta }, 'content_block_delta')
      await sse.send({ type: 'content_block_stop', index }, 'content_block_stop')
      index++
    }
    for (const step of response.steps) {
      if ('text' in step) {
        await block(
          { type: 'text', text: '' },
          pieces(step.text, response.splitText).map((text) => ({ type: 'text_delta', text })),
        )
      } else if ('reasoning' in step) {
        await block({ type: 'thinking', thinking: '', signature: '' }, [
          ...pieces(step.reasoning, response.splitText).map((thinking) => ({ type: 'thinking_delta', thinking })),
          { type: 'signature_delta', signature: 'fake-signature' },
        ])
      } else {
        for (const call of step.toolCalls) {
          // The real API opens every tool_use block with an empty input_json_delta.
          await block({ type: 'tool_use', id: call.id, name: call.name, input: {} }, [
            { type: 'input_json_delta', partial_json: '' },
            ...pieces(argumentsOf(call), response.splitArgs).map((partial_json) => ({
              type: 'input_json_delta',
              partial_json,
            })),
          ])
        }
      }
    }
    await sse.send(
      {
        type: 'message_delta',
        delta: { stop_reason: ANTHROPIC_FINISH[finishOf(response)], stop_sequence: null },
        usage: { output_tokens: usage.output },
      },
      'message_delta',
    )
    await sse.send({ type: 'message_stop' }, 'message_stop')
  },
  json(model, response) {
    const usage = response.usage ?? DEFAULT_USAGE
    return {
      id: nextId('msg_fake'),
      type: 'message',
      role: 'assistant',
      model,
      content: response.steps.flatMap((s): unknown[] =>
        'text' in s
          ? [{ type: 'text', text: s.text }]
          : 'reasoning' in s
            ? [{ type: 'thinking', thinking: s.reasoning, signature: 'fake-signature' }]
            : s.toolCalls.map((c) => ({
                type: 'tool_use',
                id: c.id,
                name: c.name,
                input: parseObject(argumentsOf(c)),
              })),
      ),
      stop_reason: ANTHROPIC_FINISH[finishOf(response)],
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    }
  },
}

async function anthropicStart(sse: Sse, model: string, usage: FakeUsage): Promise<void> {
  await sse.send(
    {
      type: 'message_start',
      message: {
        id: nextId('msg_fake'),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    },
    'message_start',
  )
  await sse.send({ type: 'ping' }, 'ping')
}
