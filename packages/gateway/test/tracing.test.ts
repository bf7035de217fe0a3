import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

/** A span as the OTLP/HTTP JSON exporter sends it, its attributes flattened. */
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly status: { readonly code?: number };
  readonly attributes: Record<string, string | number | boolean>;
  readonly service: string;
}

const SERVER = 2;
const CLIENT = 3;

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly boolValue?: boolean;
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}

/** Ids are hex in OTLP's JSON encoding; base64 would mean the exporter changed its encoding. */
const hex = (id: string | undefined) => (id === undefined || id === '' ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));
const flatten = (attributes: readonly OtlpAttribute[] = []) =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)) ?? '']),
  );

/** An OTLP/HTTP receiver: decodes every export request the real exporter sends. */
async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; contentTypes: string[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: OtlpAttribute[] };
          scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes: OtlpAttribute[] })[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = String(flatten(resourceSpans.resource.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              ...span,
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              status: span.status ?? {},
              attributes: flatten(span.attributes),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
let upstream: RecordingUpstream;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let gateway: RunningGateway;
let log = '';

before(async () => {
  keyring = await createTestKeyring();
  upstream = await startRecordingUpstream();
  receiver = await startReceiver();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  gateway = await startGateway(
    {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      RATE_LIMITS: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    },
    undefined,
    undefined,
    { logger: pino({ level: 'info' }, sink) },
  );
});
after(async () => {
  await gateway?.close();
  await upstream?.close();
  await receiver?.close();
});

/** The spans of `traceId`, once `count` of them arrived. */
async function spansOf(traceId: string, count: number): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = receiver.spans.filter((span) => span.traceId === traceId);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} spans of ${traceId} arrived: ${found.map((s) => s.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

test("the client's trace goes on: a server span, its children, and the upstream call's context passed upstream", async () => {
  const { token } = await keyring.issue({ plan: 'pro', sub: 'acme' });
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const clientSpan = 'b7ad6b7169203331';
  const res = await fetch(`${gateway.url}/v1/echo`, {
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${clientSpan}-01`, tracestate: 'vendor=abc' },
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const seen = upstream.requests.at(-1)?.headers ?? {};
  const passed = TRACEPARENT.exec(String(seen.traceparent));
  assert.ok(passed !== null, `upstream got traceparent ${String(seen.traceparent)}`);
  assert.equal(passed[1], traceId, 'the same trace');
  assert.notEqual(passed[2], clientSpan, "the upstream's parent is the gateway's call, not the client");
  assert.equal(seen.tracestate, 'vendor=abc');

  const spans = await spansOf(traceId, 4);
  const server = spans.find((span) => span.kind === SERVER);
  assert.ok(server !== undefined);
  assert.equal(server.name, 'GET /v1/echo');
  assert.equal(server.parentSpanId, clientSpan);
  assert.equal(server.attributes['http.route'], '/v1/echo');
  assert.equal(server.attributes['http.response.status_code'], 200);
  assert.equal(server.service, 'gateway-under-test');
  const verify = spans.find((span) => span.name === 'verify key');
  assert.equal(verify?.parentSpanId, server.spanId);
  assert.equal(verify?.attributes['gateway.auth.outcome'], 'authenticated');
  const limit = spans.find((span) => span.name === 'rate limit');
  assert.equal(limit?.parentSpanId, server.spanId);
  assert.equal(limit?.attributes['gateway.ratelimit.decision'], 'allowed');
  assert.equal(limit?.attributes['gateway.ratelimit.plan'], 'pro');
  const call = spans.find((span) => span.kind === CLIENT);
  assert.equal(call?.parentSpanId, server.spanId);
  assert.equal(call?.spanId, passed[2], 'the upstream continues from the call span');
  assert.equal(call?.attributes['http.response.status_code'], 200);
  assert.equal(call?.attributes['server.address'], '127.0.0.1');
  assert.ok(
    receiver.contentTypes.every((line) => line === 'POST /v1/traces application/json'),
    receiver.contentTypes.join('; '),
  );

  // The same key again: the cache knows it, nothing is verified, and the server span says so.
  const again = '1af7651916cd43dd8448eb211c80319c';
  const second = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}`, traceparent: `00-${again}-${clientSpan}-01` } });
  assert.equal(second.status, 200);
  await second.arrayBuffer();
  const secondSpans = await spansOf(again, 3);
  assert.deepEqual(secondSpans.map((span) => span.name).sort(), ['GET', 'GET /v1/echo', 'rate limit']);
  assert.equal(secondSpans.find((span) => span.kind === SERVER)?.attributes['gateway.auth.outcome'], 'authenticated');
});

test('without a traceparent the gateway starts a trace, passes it upstream and names it in the log line', async () => {
  const res = await fetch(`${gateway.url}/v1/echo`, { headers: { 'x-request-id': 'traced-new', traceparent: 'garbage' } });
  assert.equal(res.status, 401);
  await res.arrayBuffer();
  const reset = await fetch(`${gateway.url}/v1/reset`, { headers: { 'x-request-id': 'traced-502', authorization: `Bearer ${(await keyring.issue()).token}` } });
  assert.equal(reset.status, 502);
  await reset.arrayBuffer();

  const deadline = Date.now() + 5000;
  const lineOf = (id: string) =>
    log
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === id && l.status !== undefined);
  while ((lineOf('traced-new') === undefined || lineOf('traced-502') === undefined) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const refused = String(lineOf('traced-new')?.traceId);
  assert.match(refused, /^[0-9a-f]{32}$/);
  // The server span and the anonymous 'rate limit': no key, nothing verified, no 'verify key' span.
  const refusedSpans = await spansOf(refused, 2);
  const server = refusedSpans.find((span) => span.kind === SERVER);
  assert.equal(server?.attributes['gateway.auth.outcome'], 'missing');
  assert.equal(
    refusedSpans.some((span) => span.name === 'verify key'),
    false,
  );
  assert.equal(server?.parentSpanId, '', 'a root span');
  assert.equal(server?.attributes['http.response.status_code'], 401);

  const failed = String(lineOf('traced-502')?.traceId);
  const passed = TRACEPARENT.exec(String(upstream.requests.at(-1)?.headers.traceparent));
  assert.equal(passed?.[1], failed, 'the upstream got the trace the log line names');
  const spans = await spansOf(failed, 4);
  const call = spans.find((span) => span.kind === CLIENT);
  assert.equal(call?.attributes['error.type'], 'bad_gateway');
  assert.equal(call?.status.code, 2, 'an error status');
  assert.equal(spans.find((span) => span.kind === SERVER)?.name, 'GET /v1/reset');
});

test('a request its sampler leaves out makes no spans, and the upstream is told it is not sampled', async () => {
  const token = (await keyring.issue()).token;
  const unsampled = '5bf92f3577b34da6a3ce929d0e0e4736';
  const clientSpan = '00f067aa0ba902b7';
  const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}`, traceparent: `00-${unsampled}-${clientSpan}-00` } });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const passed = /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/.exec(String(upstream.requests.at(-1)?.headers.traceparent));
  assert.equal(passed?.[1], unsampled, 'the upstream continues the same trace, not sampled');
  assert.notEqual(passed?.[2], clientSpan, "the gateway's own span id goes upstream");
  // A sampled request after it: once its spans arrived, any of the earlier request would have too.
  const sampled = '6bf92f3577b34da6a3ce929d0e0e4737';
  const after = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}`, traceparent: `00-${sampled}-${clientSpan}-01` } });
  await after.arrayBuffer();
  await spansOf(sampled, 3);
  assert.deepEqual(
    receiver.spans.filter((span) => span.traceId === unsampled),
    [],
  );
});

test('a new trace the ratio sampler leaves out still has its id in the log line and goes upstream not sampled', async (t) => {
  let lines = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines += chunk.toString('utf8');
      done();
    },
  });
  const leaving = await startGateway(
    {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // No new trace is kept; a client's sampled trace is followed.
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    },
    undefined,
    undefined,
    { logger: pino({ level: 'info' }, sink) },
  );
  t.after(() => leaving.close());
  const res = await fetch(`${leaving.url}/v1/echo`, { headers: { 'x-request-id': 'left-out-root' } });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const passed = /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/.exec(String(upstream.requests.at(-1)?.headers.traceparent));
  assert.ok(passed !== null, `upstream got traceparent ${String(upstream.requests.at(-1)?.headers.traceparent)}`);
  assert.notEqual(passed[1], '0'.repeat(32));
  const deadline = Date.now() + 5000;
  const lineOf = () =>
    lines
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === 'left-out-root' && l.status !== undefined);
  while (lineOf() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(lineOf()?.traceId, passed[1], 'the log line names the trace the upstream continues');
  // A sampled request after it: once its spans arrived, any of the earlier request would have too.
  const followed = '7bf92f3577b34da6a3ce929d0e0e4738';
  const after = await fetch(`${leaving.url}/v1/echo`, { headers: { traceparent: `00-${followed}-00f067aa0ba902b7-01` } });
  await after.arrayBuffer();
  await spansOf(followed, 2);
  assert.deepEqual(
    receiver.spans.filter((span) => span.traceId === passed[1]),
    [],
  );
});

test('tracing is off unless an OTLP endpoint is set, and OTEL_TRACES_EXPORTER=none keeps it off', async () => {
  const { loadConfig } = await import('../src/config/index.js');
  const tracing = (env: Record<string, string>) => {
    const result = loadConfig({ AUTH: 'off', ...env });
    assert.ok(result.ok);
    return result.config.tracing;
  };
  assert.equal(tracing({}), undefined);
  assert.equal(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }), undefined);
  assert.equal(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url, 'http://collector:4318/v1/traces');
  assert.equal(
    tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces' })?.url,
    'http://b:4318/traces',
  );
  assert.deepEqual(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s%3Dcret,x=1' })?.headers, {
    'api-key': 's=cret',
    x: '1',
  });
});
