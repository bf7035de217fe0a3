// The gateway's admin console: plain JavaScript on the admin API, no framework, nothing from
// elsewhere. Every URL is relative to the page (…/admin), so it works behind any prefix a reverse
// proxy puts the admin listener under. Data goes into the page as text, never as markup.
'use strict';

(() => {
  const TOKEN_KEY = 'gateway-admin-token';
  const REFRESH_MS = 5000;
  /** Pages of accounts read at most (of 1,000 each): past them, search narrows the list on the server. */
  const MAX_PAGES = 5;
  const $ = (id) => document.getElementById(id);

  const state = {
    accounts: [],
    more: false,
    search: '',
    sort: { key: 'account', descending: false },
    selected: undefined,
    lastDecisions: undefined,
    timer: undefined,
  };

  const token = () => sessionStorage.getItem(TOKEN_KEY) ?? '';

  /** A call of the admin API: its JSON, or an Error with the API's message (`status` on it). */
  async function api(path, init = {}) {
    const res = await fetch(`admin/${path}`, { ...init, headers: { authorization: `Bearer ${token()}`, ...init.headers } });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw Object.assign(new Error(body.message ?? `${res.status} ${res.statusText}`), { status: res.status });
    return body;
  }

  /** An element with its text and attributes; children after. */
  function el(tag, text, attributes = {}, ...children) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    node.append(...children);
    return node;
  }

  const when = (seconds) => (seconds === null || seconds === undefined ? '—' : new Date(seconds * 1000).toLocaleString());
  const status = (text, isError = false) => {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : 'hint';
  };
  const NEXT = { allowed: 'admitted', shadow_limited: 'admitted (shadow would refuse)', limited: 'refused', banned: 'banned' };

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

  function renderAccounts() {
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

  function renderShadow() {
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

  function renderRates(current) {
    const previous = state.lastDecisions;
    state.lastDecisions = current;
    if (previous === undefined) {
      $('rates').tBodies[0].replaceChildren(
        el('tr', undefined, {}, el('td', 'Measuring: the rates show at the next refresh.', { colspan: '4', class: 'hint' })),
      );
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

  async function loadAccounts() {
    const accounts = [];
    let cursor;
    let pages = 0;
    do {
      const query = new URLSearchParams({ limit: '1000' });
      if (cursor !== undefined) query.set('cursor', cursor);
      const page = await api(`accounts?${query}`);
      accounts.push(...page.accounts);
      $('day').textContent = `Today: ${page.day}`;
      cursor = page.next;
      pages += 1;
    } while (cursor !== undefined && pages < MAX_PAGES);
    state.accounts = accounts;
    state.more = cursor !== undefined;
    renderAccounts();
    renderShadow();
  }

  async function showAccount(name) {
    state.selected = name;
    renderAccounts();
    let account;
    try {
      account = await api(`accounts/${encodeURIComponent(name)}`);
    } catch (error) {
      status(`${name}: ${error.message}`, true);
      return;
    }
    $('account').hidden = false;
    $('account-name').textContent = account.account;
    $('account-plan').textContent = `plan ${account.plan ?? 'unknown'}${account.shadow ? ' (in shadow: computed, not enforced)' : ''}`;
    const refusals = Object.entries(account.shadowRefusals).map(([plan, count]) => `${count} under ${plan}`);
    $('account-next').textContent =
      `Its next request: ${NEXT[account.next]}${account.retryAt === null ? '' : `, fits again at ${when(account.retryAt)}`}.` +
      (refusals.length > 0 ? ` Shadow refusals today: ${refusals.join(', ')}.` : '');
    const windowRows = [];
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
        windowRows.push(
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
    $('windows').tBodies[0].replaceChildren(...windowRows);
    $('keys').tBodies[0].replaceChildren(...account.keys.map((key) => keyRow(account.account, key)));
  }

  function keyRow(account, key) {
    const revocation = key.revoked
      ? `revoked${key.refusedFrom === null ? '' : ` ${when(key.refusedFrom)}`}`
      : key.refusedFrom !== null
        ? `refused from ${when(key.refusedFrom)} (grace)`
        : 'no';
    const actions = el('td');
    if (key.bannedUntil !== null) actions.append(actionButton('Lift ban', 'lift-ban', account, key));
    if (!key.revoked) actions.append(' ', actionButton('Revoke', 'revoke', account, key));
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

  function actionButton(label, action, account, key) {
    const button = el('button', label, { type: 'button', 'data-action': action, 'data-key': key.id, class: action === 'revoke' ? 'danger' : '' });
    button.addEventListener('click', () => confirmAction(action, account, key.id));
    return button;
  }

  const ACTIONS = {
    revoke: {
      label: 'Revoke',
      question: (account, id) => `Revoke key ${id} of ${account}? Every instance refuses it from its next request, for good.`,
      run: (id) => api(`keys/${encodeURIComponent(id)}/revoke`, { method: 'POST' }),
      done: (id) => `Key ${id} is revoked.`,
    },
    'lift-ban': {
      label: 'Lift ban',
      question: (account, id) => `Lift the ban of key ${id} of ${account}? It is admitted again as its plan allows.`,
      run: (id) => api(`bans/${encodeURIComponent(id)}`, { method: 'DELETE' }),
      done: (id) => `The ban of key ${id} is lifted.`,
    },
  };

  function confirmAction(action, account, id) {
    const { label, question, run, done } = ACTIONS[action];
    const dialog = $('confirm');
    $('confirm-text').textContent = question(account, id);
    $('confirm-ok').textContent = label;
    $('confirm-ok').onclick = async () => {
      dialog.close();
      try {
        await run(id);
        status(done(id));
      } catch (error) {
        status(`${label} ${id}: ${error.message}`, true);
      }
      await refresh();
    };
    dialog.showModal();
  }

  async function refresh() {
    try {
      await loadAccounts();
      renderRates(await api('decisions'));
      if (state.selected !== undefined && state.accounts.some((account) => account.account === state.selected)) await showAccount(state.selected);
    } catch (error) {
      if (error.status === 401 || error.status === 429) return signOut(error.message);
      status(error.message, true);
    }
  }

  function signedIn() {
    $('sign-in').hidden = true;
    $('console').hidden = false;
    $('sign-out').hidden = false;
    void refresh();
    state.timer = setInterval(refresh, REFRESH_MS);
  }

  function signOut(reason = '') {
    sessionStorage.removeItem(TOKEN_KEY);
    clearInterval(state.timer);
    $('console').hidden = true;
    $('sign-out').hidden = true;
    $('sign-in').hidden = false;
    $('sign-in-error').textContent = reason;
  }

  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
    $('token').value = '';
    $('sign-in-error').textContent = '';
    signedIn();
  });
  $('sign-out').addEventListener('click', () => signOut());
  $('confirm-cancel').addEventListener('click', () => $('confirm').close());
  $('search').addEventListener('input', (event) => {
    state.search = event.target.value;
    renderAccounts();
  });
  // Enter opens the account of that exact name, listed or not (beyond the pages read, say).
  $('search').addEventListener('keydown', (event) => {
    const name = event.target.value.trim();
    if (event.key === 'Enter' && name !== '') void showAccount(name);
  });
  for (const button of document.querySelectorAll('#accounts th button')) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort;
      state.sort = { key, descending: state.sort.key === key ? !state.sort.descending : key !== 'account' && key !== 'plan' };
      renderAccounts();
    });
  }
  $('accounts').tBodies[0].addEventListener('click', (event) => {
    const row = event.target.closest('tr[data-account]');
    if (row !== null) void showAccount(row.dataset.account);
  });
  $('accounts').tBodies[0].addEventListener('keydown', (event) => {
    const row = event.target.closest('tr[data-account]');
    if (row !== null && event.key === 'Enter') void showAccount(row.dataset.account);
  });

  if (token() !== '') signedIn();
})();
