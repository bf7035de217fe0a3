import assert from 'node:assert/strict';
import { test } from 'node:test';
import { billingCsv } from './billing.js';

test('the billing CSV: a header, CRLF lines, quoted where it must be, and no cell a spreadsheet reads as a formula', () => {
  const csv = billingCsv({
    month: '2026-11',
    timeZone: 'UTC',
    from: 0,
    at: 0,
    accounts: [
      { account: 'acme', plan: 'pro', units: 1234, quota: 50000, unaccounted: 2 },
      { account: 'Smith, "Jo"', plan: 'free', units: null, quota: null, unaccounted: null },
      { account: '=HYPERLINK("http://x")', plan: 'pro', units: 1, quota: 2, unaccounted: 0 },
      { account: '+1', plan: '-x', units: 0, quota: 5, unaccounted: 0 },
      // Issue 39, 3.7: a `;` locale's spreadsheet splits at `;`: a cell holding one is quoted too.
      { account: 'x;=1+2', plan: 'a;b', units: 3, quota: 4, unaccounted: 0 },
    ],
  });
  assert.equal(
    csv,
    [
      'month,account,plan,units,quota,unaccounted',
      '2026-11,acme,pro,1234,50000,2',
      '2026-11,"Smith, ""Jo""",free,,,',
      `2026-11,"'=HYPERLINK(""http://x"")",pro,1,2,0`,
      "2026-11,'+1,'-x,0,5,0",
      '2026-11,"x;=1+2","a;b",3,4,0',
      '',
    ].join('\r\n'),
  );
});
