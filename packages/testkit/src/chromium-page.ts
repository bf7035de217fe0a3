import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM_FLAGS } from './chromium.js';
import { TEST_ENV } from './config.js';
import { temporaryDir } from './temporary-dir.js';

/** A page of headless Chromium a test drives (see `openPage`). */
export interface BrowserPage {
  /** Evaluates `expression` in the page (awaiting a promise it gives) and resolves with its value as JSON; a thrown error rejects. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Evaluates `expression` every 100 ms until it gives a truthy value, and resolves with it; rejects after `timeoutMs`. */
  waitFor<T = unknown>(expression: string, timeoutMs?: number): Promise<T>;
  /** Writes a PNG of the page as it is now (the window's size) to `file`. */
  screenshot(file: string): Promise<void>;
  /** Messages the page wrote to its console, and errors it threw, so far. */
  console(): readonly string[];
  close(): Promise<void>;
}

interface Reply {
  readonly id?: number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** Waits for `check` to give a value (polling every 50 ms), up to `timeoutMs`. */
async function until<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Opens `url` in headless Chromium (Debian's `chromium`, a process and a profile of its own, the
 * same flags as `renderedDom`: only loopback names resolve) and drives it over the DevTools
 * protocol, through Node's own WebSocket client: what a test does in a page that a DOM dump
 * cannot (type into a form, click, answer a dialog of the page), and a screenshot of the page then.
 */
export async function openPage(url: string, options: { readonly width?: number; readonly height?: number } = {}): Promise<BrowserPage> {
  const profile = temporaryDir('chromium-page-');
  const { width = 1280, height = 900 } = options;
  const child = spawn(
    'chromium',
    [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', `--window-size=${width},${height}`, '--hide-scrollbars', url],
    {
      env: { PATH: TEST_ENV.path, HOME: profile },
      stdio: 'ignore',
      detached: true,
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Gone already.
    }
  };
  process.once('exit', kill);
  let socket: WebSocket;
  try {
    const portFile = join(profile, 'DevToolsActivePort');
    const port = await until(
      () => (existsSync(portFile) ? readFileSync(portFile, 'utf8').split('\n')[0] || undefined : undefined),
      30_000,
      'Chromium opened no DevTools port',
    );
    const target = await until(
      async () => {
        const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; url: string; webSocketDebuggerUrl: string }[];
        return targets.find((candidate) => candidate.type === 'page' && candidate.url !== 'about:blank');
      },
      30_000,
      `Chromium opened no page of ${url}`,
    );
    socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', () => reject(new Error('the DevTools socket did not open')), { once: true });
    });
  } catch (error) {
    kill();
    throw error;
  }

  let lastId = 0;
  const waiting = new Map<number, { resolve: (reply: Reply) => void }>();
  const logged: string[] = [];
  socket.addEventListener('message', (event) => {
    const reply = JSON.parse(String(event.data)) as Reply;
    if (reply.id !== undefined) waiting.get(reply.id)?.resolve(reply);
    else if (reply.method === 'Runtime.consoleAPICalled') logged.push(JSON.stringify((reply.params?.args as { value?: unknown }[]).map((arg) => arg.value)));
    else if (reply.method === 'Runtime.exceptionThrown') logged.push(JSON.stringify(reply.params?.exceptionDetails));
  });
  async function send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++lastId;
    const reply = await new Promise<Reply>((resolve) => {
      waiting.set(id, { resolve });
      socket.send(JSON.stringify({ id, method, params }));
    });
    waiting.delete(id);
    if (reply.error !== undefined) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result ?? {};
  }
  await send('Runtime.enable');

  const evaluate = async <T>(expression: string): Promise<T> => {
    const result = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    const thrown = result.exceptionDetails as { exception?: { description?: string }; text?: string } | undefined;
    if (thrown !== undefined) throw new Error(`in the page: ${thrown.exception?.description ?? thrown.text}`);
    return (result.result as { value?: T }).value as T;
  };
  return {
    evaluate,
    waitFor: <T>(expression: string, timeoutMs = 15_000) =>
      until(async () => (await evaluate<T>(expression)) || undefined, timeoutMs, `the page never made ${expression} true; its console: ${logged.join('\n')}`),
    async screenshot(file) {
      const { data } = await send('Page.captureScreenshot', { format: 'png' });
      writeFileSync(file, Buffer.from(data as string, 'base64'));
    },
    console: () => logged,
    async close() {
      socket.close();
      kill();
      await exited;
      process.removeListener('exit', kill);
    },
  };
}
