// The gateway's admin console: plain JavaScript on the admin API, no framework, nothing from
// elsewhere. Every URL is relative to the page (…/admin), so it works behind any prefix a reverse
// proxy puts the admin listener under. Data goes into the page as text, never as markup.
// A module (console-api.js: the admin API's calls; console-dom.js: the page's helpers;
// console-tables.js: the tables of the accounts and the decisions).
import { api, token, TOKEN_KEY } from './console-api.js';
import { $, el, idPath, when } from './console-dom.js';
import { keyRow, NEXT, renderAccounts, renderRates, renderShadow, windowRows } from './console-tables.js';

(() => {
  const REFRESH_MS = 5000;
  /** Pages of accounts read at most (of 1,000 each): past them, search narrows the list on the server. */
  const MAX_PAGES = 5;

  const state = {
    accounts: [],
    more: false,
    search: '',
    sort: { key: 'account', descending: false },
    selected: undefined,
    lastDecisions: undefined,
    timer: undefined,
  };

  const status = (text, isError = false) => {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : 'hint';
  };
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
    renderAccounts(state);
    renderShadow(state);
  }

  async function showAccount(name) {
    state.selected = name;
    renderAccounts(state);
    let account;
    try {
      account = await api(idPath('accounts', name, 'account'));
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
    $('windows').tBodies[0].replaceChildren(...windowRows(account));
    $('keys').tBodies[0].replaceChildren(...account.keys.map((key) => keyRow(account.account, key, actionButton)));
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
      run: (id) => api(idPath('keys', id, 'key', '/revoke'), { method: 'POST' }),
      done: (id) => `Key ${id} is revoked.`,
    },
    'lift-ban': {
      label: 'Lift ban',
      question: (account, id) => `Lift the ban of key ${id} of ${account}? It is admitted again as its plan allows.`,
      run: (id) => api(idPath('bans', id, 'key'), { method: 'DELETE' }),
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
      renderRates(state, await api('decisions'));
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
    renderAccounts(state);
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
      renderAccounts(state);
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
