import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_ENV } from './config.js';
import { temporaryDir } from './temporary-dir.js';
import { commandSkipReason } from './tools.js';

/** Why browser tests cannot run here (Debian's `chromium` missing), or `false`; under CI a missing browser throws. */
export function chromiumSkipReason(): string | false {
  return commandSkipReason('chromium', 'apt-get install chromium');
}

/**
 * How every test runs Chromium: headless, and resolving no host name but the loopback addresses,
 * so a page that reaches for a CDN renders without it (and the test that looks at it fails)
 * instead of quietly loading it.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless=new',
  '--no-sandbox', // tests run as root in CI
  '--disable-gpu',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-extensions',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

/** Headless Chromium, one process per call, each with a profile of its own (`CHROMIUM_FLAGS`). */
function runChromium(url: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
  const profile = temporaryDir('chromium-profile-');
  const flags = [
    ...CHROMIUM_FLAGS,
    `--user-data-dir=${profile}`,
    // Runs the page's scripts and timers up to this much virtual time, then reports.
    '--virtual-time-budget=20000',
    ...args,
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile('chromium', flags, { env: { PATH: TEST_ENV.path, HOME: profile }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`chromium failed: ${error.message}\n${stderr.slice(-2000)}`));
      else resolve(stdout);
    });
  });
}

/** The page's DOM, serialised after its scripts ran. */
export function renderedDom(url: string): Promise<string> {
  return runChromium(url, ['--dump-dom']);
}

/**
 * A PNG of the page at `width`×`height`, written to `TEST_OUTPUT_DIR` when it is set (and kept),
 * else to a temporary directory removed when the test process exits. Resolves with the file.
 */
export async function screenshot(url: string, name: string, width = 1280, height = 1400): Promise<string> {
  const dir = TEST_ENV.outputDir ?? temporaryDir('screenshots-');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  await runChromium(url, ['--hide-scrollbars', `--window-size=${width},${height}`, `--screenshot=${file}`]);
  return file;
}
