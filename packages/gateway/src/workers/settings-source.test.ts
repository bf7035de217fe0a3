import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettings } from './settings-source.js';

const files = (contents: Record<string, string>) => (path: string) => {
  const text = contents[path];
  if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
  return text;
};

test('SETTINGS_FILE: its NAME=value lines go over the environment, and the workers get them', () => {
  const read = files({ '/etc/gw/settings.env': '# comment\nUPSTREAM_URL=http://10.0.0.2:9000\nWORKERS=3\nLOG_LEVEL=\n' });
  const result = readSettings({ AUTH: 'off', LOG_LEVEL: 'warn', UPSTREAM_URL: 'http://127.0.0.1:1', SETTINGS_FILE: '/etc/gw/settings.env' }, read);
  assert.ok(result.ok);
  assert.equal(result.config.upstream.url.href, 'http://10.0.0.2:9000/');
  assert.equal(result.config.workers, 3);
  assert.equal(result.config.logLevel, 'info', 'an empty value in the file unsets the variable: its default applies');
  assert.deepEqual(result.overrides, { UPSTREAM_URL: 'http://10.0.0.2:9000', WORKERS: '3', LOG_LEVEL: '' });
});

test('without SETTINGS_FILE the environment alone', () => {
  const result = readSettings({ AUTH: 'off', WORKERS: '2' }, files({}));
  assert.ok(result.ok);
  assert.equal(result.config.workers, 2);
  assert.equal(result.config.settingsFile, undefined);
  assert.deepEqual(result.overrides, {});
});

test('a settings file that cannot be used: every problem, naming the file', () => {
  const missing = readSettings({ AUTH: 'off', SETTINGS_FILE: '/nope.env' }, files({}));
  assert.ok(!missing.ok);
  assert.match(missing.problems.join('\n'), /^SETTINGS_FILE: \/nope\.env cannot be read: ENOENT/);
  const bad = readSettings(
    { AUTH: 'off', SETTINGS_FILE: '/s.env' },
    files({ '/s.env': 'UPSTREM_URL=http://x\nSETTINGS_FILE=/other.env\nPORT=seventy\nWORKERS=0\n' }),
  );
  assert.ok(!bad.ok);
  assert.deepEqual([...bad.problems].sort(), [
    'PORT: Invalid input: expected number, received NaN (set in /s.env)',
    'SETTINGS_FILE: /s.env sets SETTINGS_FILE, which only the environment can set',
    'SETTINGS_FILE: /s.env sets UPSTREM_URL, which is not a setting of the gateway',
    'WORKERS: must be auto or a whole number from 1 to 64, not "0" (set in /s.env)',
  ]);
});

test('an invalid environment is reported before the file is read', () => {
  const result = readSettings({ AUTH: 'off', WORKERS: '65', SETTINGS_FILE: '/s.env' }, files({ '/s.env': 'WORKERS=2\n' }));
  assert.ok(!result.ok);
  assert.deepEqual(result.problems, ['WORKERS: must be auto or a whole number from 1 to 64, not "65"']);
});
