import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCalendar, isTimeZone } from './calendar.js';

const iso = (at: number) => new Date(at).toISOString();

test('UTC months start at 00:00 UTC on the first', () => {
  const calendar = createCalendar();
  const { start, end } = calendar.monthOf(Date.UTC(2026, 10, 24, 12));
  assert.deepEqual([iso(start), iso(end)], ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z']);
  assert.deepEqual(calendar.boundaries(Date.UTC(2026, 11, 31, 23, 59, 59, 999)).map(iso), [
    '2026-11-01T00:00:00.000Z',
    '2026-12-01T00:00:00.000Z',
    '2027-01-01T00:00:00.000Z',
    '2027-02-01T00:00:00.000Z',
  ]);
});

test('a zone with daylight saving time: local midnight, and a month an hour longer when the clocks go back', () => {
  const berlin = createCalendar('Europe/Berlin');
  // Summer time ends on 25 October 2026: October is 31 days and one hour long.
  const october = berlin.monthOf(Date.UTC(2026, 9, 20));
  assert.deepEqual([iso(october.start), iso(october.end)], ['2026-09-30T22:00:00.000Z', '2026-10-31T23:00:00.000Z']);
  assert.equal(october.end - october.start, 31 * 86_400_000 + 3_600_000);
  // The last instant of October in Berlin, and the first of November.
  assert.equal(berlin.monthOf(Date.UTC(2026, 9, 31, 22, 59, 59, 999)).start, october.start);
  assert.equal(berlin.monthOf(Date.UTC(2026, 9, 31, 23)).start, october.end);
  // New York leaves daylight time at 02:00 on 1 November 2026: the month starts at 00:00 EDT.
  const york = createCalendar('America/New_York');
  assert.equal(iso(york.monthOf(Date.UTC(2026, 10, 15)).start), '2026-11-01T04:00:00.000Z');
  assert.equal(iso(york.monthOf(Date.UTC(2026, 10, 15)).end), '2026-12-01T05:00:00.000Z');
  assert.equal(iso(york.monthOf(Date.UTC(2026, 10, 1, 3, 59)).start), '2026-10-01T04:00:00.000Z', 'still October there');
});

test('zones are checked', () => {
  assert.equal(isTimeZone('Europe/Berlin'), true);
  assert.equal(isTimeZone('Mars/Olympus'), false);
  assert.throws(() => createCalendar('Mars/Olympus'), RangeError);
});

test('days start at local midnight: a day of 23 or 25 hours when the clocks change, and the date is local', () => {
  const utc = createCalendar();
  assert.deepEqual(utc.dayOf(Date.UTC(2026, 10, 28, 23, 59, 59, 999)), {
    date: '2026-11-28',
    start: Date.UTC(2026, 10, 28),
    end: Date.UTC(2026, 10, 29),
  });
  assert.equal(utc.dayOf(Date.UTC(2026, 10, 29)).date, '2026-11-29');
  const berlin = createCalendar('Europe/Berlin');
  // 23:30 UTC on 27 November is already the 28th in Berlin (UTC+1).
  const late = berlin.dayOf(Date.UTC(2026, 10, 27, 23, 30));
  assert.deepEqual([late.date, iso(late.start), iso(late.end)], ['2026-11-28', '2026-11-27T23:00:00.000Z', '2026-11-28T23:00:00.000Z']);
  // Summer time ends on 25 October 2026 (25 hours) and starts on 29 March (23 hours).
  const autumn = berlin.dayOf(Date.UTC(2026, 9, 25, 12));
  assert.equal(autumn.end - autumn.start, 25 * 3_600_000);
  const spring = berlin.dayOf(Date.UTC(2026, 2, 29, 12));
  assert.equal(spring.end - spring.start, 23 * 3_600_000);
  // Month boundaries: 31 December to 1 January.
  assert.equal(berlin.dayOf(Date.UTC(2026, 11, 31, 23, 0)).date, '2027-01-01');
  // A zone whose midnight the clock skips (Santiago moves from 00:00 to 01:00 on 6 September 2026).
  const santiago = createCalendar('America/Santiago');
  const skipped = santiago.dayOf(Date.UTC(2026, 8, 6, 5));
  assert.equal(skipped.date, '2026-09-06');
  assert.ok(skipped.start <= Date.UTC(2026, 8, 6, 5) && Date.UTC(2026, 8, 6, 5) < skipped.end);
});
