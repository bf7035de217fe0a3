// The admin console's tables (console.js): the accounts, sorted and searched, the shadow refusals
// by plan, and the decisions' rates between two readings. Each is drawn from the page's `state`.
import { $, el, when } from './console-dom.js';

export const NEXT = {
  allowed: 'admitted',
  shadow_limited: 'admitted (shadow would refuse)',
  limited: 'refused',
  banned: 'banned',
  revoked: 'refused: its key is revoked',
};

function usedShare(account, name) {
  const window = account.windows[name];
  return window === undefined || window.limit === 0 ? -1 : window.used / window.limit;
}

const SORTS = {
  account: (a) => a.account,
  plan: (a) => a.plan ?? '',
  next: (a) => a.next,
  minute: (a) => usedShare(a, 'minute'),
  day: (a) => usedShare(a, 'day'),
  month: (a) => usedShare(a, 'month'),
  shadow: (a) => Object.values(a.shadowRefusals).reduce((sum, n) => sum + n, 0),
  banned: (a) => (a.banned ? 1 : 0),
};

function windowCell(window) {
  if (window === undefined) return el('td', '—');
  return el('td', `${window.used} / ${window.limit}`, { class: 'number' });
}

export function renderAccounts(state) {
  const { key, descending } = state.sort;
  const value = SORTS[key];
  const shown = state.accounts
    .filter((account) => account.account.toLowerCase().includes(state.search.toLowerCase()))
    .sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      const order = x < y ? -1 : x > y ? 1 : a.account < b.account ? -1 : 1;
      return descending ? -order : order;
    });
  const rows = shown.map((account) => {
    const shadow = Object.values(account.shadowRefusals).reduce((sum, n) => sum + n, 0);
    const row = el(
      'tr',
      undefined,
      { 'data-account': account.account, tabindex: '0' },
      el('td', account.account),
      el('td', account.plan ?? 'unknown'),
      el('td', NEXT[account.next], { class: `state-${account.next}` }),
      windowCell(account.windows.minute),
      windowCell(account.windows.day),
      windowCell(account.windows.month),
      el('td', shadow, { class: 'number' }),
      el('td', account.banned ? 'yes' : 'no', { class: account.banned ? 'state-banned' : '' }),
    );
    if (account.account === state.selected) row.classList.add('selected');
    return row;
  });
  $('accounts').tBodies[0].replaceChildren(...rows);
  for (const button of document.querySelectorAll('#accounts th button')) {
    if (button.dataset.sort === key) button.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    else button.removeAttribute('aria-sort');
  }
  const total = state.accounts.length;
  $('accounts-note').textContent =
    `${shown.length} of ${total} account${total === 1 ? '' : 's'} shown.` +
    (state.more ? ' More were seen today than are listed: type an account’s whole name and press Enter to open it.' : '');
}

export function renderShadow(state) {
  const byPlan = new Map();
  for (const account of state.accounts) {
    for (const [plan, count] of Object.entries(account.shadowRefusals)) {
      const entry = byPlan.get(plan) ?? { count: 0, accounts: 0 };
      byPlan.set(plan, { count: entry.count + count, accounts: entry.accounts + 1 });
    }
  }
  const rows = [...byPlan]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([plan, { count, accounts }]) =>
      el('tr', undefined, {}, el('td', plan), el('td', count, { class: 'number' }), el('td', accounts, { class: 'number' })),
    );
  $('shadow').tBodies[0].replaceChildren(...(rows.length > 0 ? rows : [el('tr', undefined, {}, el('td', 'None today.', { colspan: '3', class: 'hint' }))]));
}

export function renderRates(state, current) {
  const previous = state.lastDecisions;
  state.lastDecisions = current;
  if (previous === undefined) {
    $('rates').tBodies[0].replaceChildren(el('tr', undefined, {}, el('td', 'Measuring: the rates show at the next refresh.', { colspan: '4', class: 'hint' })));
    return;
  }
  const seconds = (current.at - previous.at) / 1000;
  const countOf = (sample, plan, decisions) =>
    sample.decisions.filter((d) => d.plan === plan && decisions.includes(d.decision)).reduce((sum, d) => sum + d.count, 0);
  const plans = [...new Set(current.decisions.map((d) => d.plan))].sort();
  const rate = (plan, decisions) => Math.max(0, countOf(current, plan, decisions) - countOf(previous, plan, decisions)) / seconds;
  const rows = plans.map((plan) =>
    el(
      'tr',
      undefined,
      { 'data-plan': plan },
      el('td', plan),
      el('td', rate(plan, ['allowed', 'shadow_limited', 'local', 'fail_open']).toFixed(1), { class: 'number' }),
      el('td', rate(plan, ['limited', 'banned', 'unavailable']).toFixed(1), { class: 'number' }),
      el('td', rate(plan, ['shadow_limited']).toFixed(1), { class: 'number' }),
    ),
  );
  $('rates').tBodies[0].replaceChildren(...rows);
}

/** The rows of an account's windows, its operations' ceilings after: use, a meter, what is left and when it resets. */
export function windowRows(account) {
  const rows = [];
  const addWindows = (label, windows) => {
    for (const [name, window] of Object.entries(windows)) {
      const meter = el('meter', undefined, {
        min: '0',
        max: String(Math.max(window.limit, 1)),
        value: String(Math.min(window.used, window.limit)),
        low: String(window.limit * 0.75),
        high: String(window.limit * 0.9),
        optimum: '0',
      });
      rows.push(
        el(
          'tr',
          undefined,
          { 'data-window': `${label}${name}` },
          el('td', `${label}${name}`),
          el('td', `${window.used} / ${window.limit}`, { class: 'number' }),
          el('td', undefined, {}, meter),
          el('td', window.remaining, { class: 'number' }),
          el('td', when(window.resetAt)),
        ),
      );
    }
  };

  addWindows('', account.windows);
  for (const [operation, windows] of Object.entries(account.operations ?? {})) addWindows(`${operation} (ceiling) `, windows);
  return rows;
}

/** A key's row: its plan, when it was seen and ends, its ban and revocation, and `button`s for what can be done. */
export function keyRow(account, key, button) {
  const revocation = key.revoked
    ? `revoked${key.refusedFrom === null ? '' : ` ${when(key.refusedFrom)}`}`
    : key.refusedFrom !== null
      ? `refused from ${when(key.refusedFrom)} (grace)`
      : 'no';
  const actions = el('td');
  if (key.bannedUntil !== null) actions.append(button('Lift ban', 'lift-ban', account, key));
  if (!key.revoked) actions.append(' ', button('Revoke', 'revoke', account, key));
  return el(
    'tr',
    undefined,
    { 'data-key': key.id },
    el('td', key.id),
    el('td', key.plan),
    el('td', key.lastSeen),
    el('td', when(key.expiresAt)),
    el('td', key.bannedUntil === null ? 'no' : `until ${when(key.bannedUntil)}`, { class: key.bannedUntil === null ? '' : 'state-banned' }),
    el('td', revocation, { class: key.revoked ? 'state-banned' : '' }),
    actions,
  );
}
