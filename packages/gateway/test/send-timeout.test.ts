import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PROXY_ENGINES } from '../src/proxy/index.js';
import { PROXY_TEST_PATHS, type RecordingUpstream, type RunningGateway, startGateway, startRecordingUpstream, writeDocument } from './support/index.js';

// SEND_TIMEOUT_MS bounds a client that stops reading, not an upstream that goes quiet within a
// streamed answer (SSE, long polls): a gateway with a 1 s send timeout cut such an answer after
// 500 ms of the upstream's silence, however well the client read.
for (const engine of PROXY_ENGINES) {
  describe(`SEND_TIMEOUT_MS and a streamed answer whose upstream pauses (PROXY_ENGINE=${engine})`, () => {
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;

    before(async () => {
      upstream = await startRecordingUpstream({
        '/v1/pauses': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: first\n\n');
          setTimeout(() => res.end('data: last\n\n'), 2500);
        },
      });
      const document = writeDocument({ ...PROXY_TEST_PATHS, '/pauses': { get: { operationId: 'pauses' } } });
      gateway = await startGateway({
        PROXY_ENGINE: engine,
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: document,
        SEND_TIMEOUT_MS: '1000',
        UPSTREAM_TIMEOUT_MS: '10000',
      });
    });
    after(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    test('an upstream silent for longer than the send timeout: the reading client gets the whole answer', async () => {
      const res = await fetch(`${gateway.url}/v1/pauses`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'data: first\n\ndata: last\n\n');
    });
  });
}
