import { readFileSync } from 'node:fs';
import { parseEnv as parseEnvFile } from 'node:util';
import type { Env } from '@animal-store/http-kit';
import { GATEWAY_ENV_NAMES, loadConfig, type GatewayConfig } from '../config/index.js';

/** Settings the file cannot hold: they say where the file is, or are npm's. */
const NOT_IN_FILE = new Set(['SETTINGS_FILE', 'INIT_CWD']);

export type SettingsResult =
  | {
      readonly ok: true;
      readonly config: GatewayConfig;
      /** The settings file's values, which the workers get over the environment. */
      readonly overrides: Readonly<Record<string, string>>;
    }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * The gateway's settings: the environment, with `SETTINGS_FILE`'s `NAME=value` lines over it
 * (read each time: at start and at every SIGHUP), checked as at start. Every problem is listed,
 * the file's own (unreadable, a name the gateway does not read) with the settings'.
 */
export function readSettings(env: Env, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): SettingsResult {
  const first = loadConfig(env);
  if (!first.ok) return first;
  const file = first.config.settingsFile;
  if (file === undefined) return { ok: true, config: first.config, overrides: {} };
  let overrides: Record<string, string>;
  try {
    overrides = parseEnvFile(read(file)) as Record<string, string>;
  } catch (error) {
    return { ok: false, problems: [`SETTINGS_FILE: ${file} cannot be read: ${(error as Error).message}`] };
  }
  const problems = Object.keys(overrides)
    .filter((name) => !GATEWAY_ENV_NAMES.includes(name) || NOT_IN_FILE.has(name))
    .map((name) =>
      NOT_IN_FILE.has(name)
        ? `SETTINGS_FILE: ${file} sets ${name}, which only the environment can set`
        : `SETTINGS_FILE: ${file} sets ${name}, which is not a setting of the gateway`,
    );
  const merged = loadConfig({ ...env, ...overrides });
  if (!merged.ok) {
    const fromFile = (problem: string) => Object.hasOwn(overrides, problem.split(':')[0] ?? '');
    problems.push(...merged.problems.map((problem) => (fromFile(problem) ? `${problem} (set in ${file})` : problem)));
  }
  if (problems.length > 0 || !merged.ok) return { ok: false, problems };
  return { ok: true, config: merged.config, overrides };
}
