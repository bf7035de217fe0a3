import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capturedLog, PROXY_TEST_PATHS, rawExchange, type RunningGateway, startGateway, writeDocument } from './support/index.js';

// Issue 29, point 18: the answers Node's parser makes (400, 408, 431) carried no X-Request-Id,
// though their access-log line had one.

describe("the parser's answers carry the request id of their access-log line", () => {
  let gateway: RunningGateway;
  const log = capturedLog();
  const accessLine = async (status: number) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = log
        .text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.status === status);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no access line with status ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  before(async () => {
    gateway = await startGateway(
      {
        UPSTREAM_URL: 'http://127.0.0.1:9',
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        HEADERS_TIMEOUT_MS: '200',
        REQUEST_TIMEOUT_MS: '300',
        MAX_HEADER_SIZE: '2048',
        METRICS_PORT: '0',
      },
      undefined,
      undefined,
      { logger: log.logger },
    );
  });
  after(async () => {
    await gateway?.close();
  });

  const CASES: [status: number, request: string][] = [
    [400, 'GET /v1/echo HTTP/1.1\r\nHost: gw\r\nX-Request-Id: mine\r\nBad Header\r\n\r\n'],
    [408, 'GET /v1/echo HTTP/1.1\r\nHost: gw\r\nX-Request-Id: mine\r\nX-Slow: 1'],
    [431, `GET /v1/echo HTTP/1.1\r\nHost: gw\r\nX-Request-Id: mine\r\nX-Big: ${'x'.repeat(4096)}\r\n\r\n`],
  ];
  for (const [status, request] of CASES) {
    test(`${status}: X-Request-Id, the same as the access line's requestId`, async () => {
      const reply = await rawExchange(gateway.port, request, () => false, 3000);
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `));
      const id = /\r\nx-request-id: ([^\r\n]+)\r\n/i.exec(reply)?.[1];
      assert.match(id ?? '', /^[0-9a-f-]{36}$/, reply);
      assert.equal((await accessLine(status)).requestId, id);
    });
  }

  // Issue 29, point 19: a 405 or a 431 on an operation's path was labelled `unmatched`.
  test("a 405 and a 431 on an operation's path carry its route in the access line and the metrics; a 400 and an unknown path stay unmatched", async () => {
    const notAllowed = await fetch(`${gateway.url}/v1/echo`, { method: 'PATCH' });
    assert.equal(notAllowed.status, 405);
    const line405 = await accessLine(405);
    assert.equal(line405.route, '/v1/echo');
    const big = await rawExchange(gateway.port, `GET /v1/nowhere HTTP/1.1\r\nHost: gw\r\nX-Big: ${'x'.repeat(4096)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);
    const metrics = await (await fetch(gateway.metricsUrl as string)).text();
    const count = (labels: string) => new RegExp(`^http_server_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, 'm').exec(metrics)?.[1];
    assert.equal(count('http_request_method="PATCH",http_route="/v1/echo",http_response_status_code="405",outcome="method_not_allowed"'), '1');
    assert.equal(count('http_request_method="GET",http_route="/v1/echo",http_response_status_code="431",outcome="headers_too_large"'), '1');
    assert.equal(
      count('http_request_method="GET",http_route="unmatched",http_response_status_code="431",outcome="headers_too_large"'),
      '1',
      'a path of no operation',
    );
    assert.equal(count('http_request_method="GET",http_route="unmatched",http_response_status_code="400",outcome="bad_request"'), '1');
  });
});
