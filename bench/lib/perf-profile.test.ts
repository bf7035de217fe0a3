import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStacks, sharesOf } from './perf-profile.js';

// `perf script` of three samples, as printed for a node worker run with --perf-prof after
// `perf inject --jit` (kernel, C++, JIT frames; symbols with spaces and parentheses).
const SCRIPT = `MainThread 12862  6534.331663:     500250 cpu-clock: 
\t          bcd8f3 v8::internal::SemiSpaceNewSpace::Allocate+0xe3 (/opt/node/bin/node)
\t             49f Builtin:StringAdd_CheckNone+0x41f (/work/jitted-12862-758.so)
\t             fae JS:*'startRequestTrace file:///work/packages/gateway/src/observability/request-trace.ts:1:891+0xf2e (/work/jitted-12862-4885.so)
\t             5c8 JS:*'subscribeAll file:///work/packages/gateway/src/observability/tracing.ts:1:2698+0x548 (/work/jitted-12862-4879.so)
\t          4956bc node::LibuvStreamWrap::ReadStart()::{lambda(uv_stream_s*, long, uv_buf_t const*)#2}::_FUN+0x14c (/opt/node/bin/node)

MainThread 12862  6534.334004:     500250 cpu-clock: 
\tffffffff813a2313 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])
\t             971 JS:*'_send node:_http_outgoing:400:49+0x8f1 (/work/jitted-12862-4866.so)

V8 DefaultWorke 12870  6534.335000:     500250 cpu-clock: 
\t          c0ffee v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>+0x10 (/opt/node/bin/node)
\t          c0ffef v8::internal::Scavenger::ScavengePage+0x20 (/opt/node/bin/node)
`;

test("perf script's samples: one stack each, innermost first, each frame its symbol and object, without offsets", () => {
  const stacks = parseStacks(SCRIPT);
  assert.equal(stacks.length, 3);
  assert.deepEqual(stacks[0], [
    'v8::internal::SemiSpaceNewSpace::Allocate (/opt/node/bin/node)',
    'Builtin:StringAdd_CheckNone (/work/jitted-12862-758.so)',
    "JS:*'startRequestTrace file:///work/packages/gateway/src/observability/request-trace.ts:1:891 (/work/jitted-12862-4885.so)",
    "JS:*'subscribeAll file:///work/packages/gateway/src/observability/tracing.ts:1:2698 (/work/jitted-12862-4879.so)",
    'node::LibuvStreamWrap::ReadStart()::{lambda(uv_stream_s*, long, uv_buf_t const*)#2}::_FUN (/opt/node/bin/node)',
  ]);
  assert.deepEqual(stacks[1], ['finish_task_switch.isra.0 ([kernel.kallsyms])', "JS:*'_send node:_http_outgoing:400:49 (/work/jitted-12862-4866.so)"]);
});

test('a part is the share of samples with a frame of it anywhere in the stack, each sample counted once', () => {
  const shares = sharesOf(parseStacks(SCRIPT), {
    tracing: /observability\/(tracing|request-trace)\.ts/,
    gc: /Scavenger/,
    kernel: /\[kernel/,
    none: /prom-client/,
  });
  // The first sample has two tracing frames: it counts once.
  assert.deepEqual(shares, { tracing: 1 / 3, gc: 1 / 3, kernel: 1 / 3, none: 0 });
  assert.deepEqual(sharesOf([], { tracing: /tracing/ }), { tracing: 0 });
});
