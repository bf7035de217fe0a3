import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { trustedProxies } from '../config/env-schema.js';
import { clientView } from './client-view.js';

function request(peer: string, headers: Record<string, string>): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

const trust = trustedProxies(['10.0.0.0/8', 'fd00::/8']);
const claims = { host: 'gw.internal', 'x-forwarded-for': '203.0.113.9, 10.1.1.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.test' };

test('an untrusted peer is the client; its X-Forwarded-* claims are ignored', () => {
  assert.deepEqual(clientView(request('198.51.100.7', claims), trust), {
    ip: '198.51.100.7',
    forwardedFor: '198.51.100.7',
    proto: 'http',
    host: 'gw.internal',
  });
});

test('through trusted proxies the chain is walked from the right to the first untrusted hop', () => {
  assert.deepEqual(clientView(request('10.0.0.2', claims), trust), {
    ip: '203.0.113.9',
    forwardedFor: '203.0.113.9, 10.1.1.1, 10.0.0.2',
    proto: 'https',
    host: 'api.example.test',
  });
});

test('a client cannot hide behind a forged left-most entry', () => {
  const forged = request('10.0.0.2', { host: 'gw', 'x-forwarded-for': '1.1.1.1, 198.51.100.7' });
  assert.equal(clientView(forged, trust).ip, '198.51.100.7');
});

test('IPv4-mapped IPv6 peers and IPv6 proxies are recognised', () => {
  assert.equal(clientView(request('::ffff:10.0.0.3', { 'x-forwarded-for': '192.0.2.1' }), trust).ip, '192.0.2.1');
  assert.equal(clientView(request('fd00::1', { 'x-forwarded-for': '2001:db8::5' }), trust).ip, '2001:db8::5');
  assert.equal(clientView(request('::ffff:192.0.2.8', {}), trust).ip, '192.0.2.8');
});

test('a bogus X-Forwarded-Proto falls back to the connection', () => {
  assert.equal(clientView(request('10.0.0.2', { 'x-forwarded-proto': 'gopher' }), trust).proto, 'http');
});
