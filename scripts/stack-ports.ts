// npm start's three ports (scripts/start-stack.ts): read and checked before anything starts, and
// each probed on its host, so that a port another program holds is named before any key is printed.
import { createServer, type AddressInfo } from 'node:net';

/**
 * PORT, CORE_PORT and METRICS_PORT, checked before anything starts or is printed: each a whole
 * number from 0 to 65535 (empty means unset, as for the services), and no two the same port (0, a
 * free port each, aside). Problems name the variable, as the services' do.
 */
export function stackPorts(env: NodeJS.ProcessEnv): { gateway: number; core: number; admin: number } | { problems: string[] } {
  const problems: string[] = [];
  const read = (name: string, fallback: number): number => {
    const text = env[name] ?? '';
    if (text === '') return fallback;
    const value = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (value <= 65535) return value;
    problems.push(`${name}: must be a whole number from 0 to 65535 (0 picks a free port), not ${JSON.stringify(text)}`);
    return NaN;
  };
  const gateway = read('PORT', 8080);
  const core = read('CORE_PORT', 8081);
  const admin = read('METRICS_PORT', 9464);
  const named = { PORT: gateway, CORE_PORT: core, METRICS_PORT: admin };
  const entries = Object.entries(named);
  entries.forEach(([name, port], i) => {
    for (const [other, second] of entries.slice(i + 1)) {
      if (port === second && port !== 0) problems.push(`${name} and ${other}: both are ${port}; each needs a port of its own (or 0 for a free one)`);
    }
  });
  return problems.length > 0 ? { problems } : { gateway, core, admin };
}

/**
 * The port to use: the one asked for, or a free one when asked for 0. A port another program
 * holds is refused here, before anything starts: a probe of /healthz would otherwise take that
 * program's answer for the service's.
 */
export async function portFor(variable: string, port: number, host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              // The variable that is busy, and only it: `PORT=0 CORE_PORT=0` failed the same way for METRICS_PORT.
              `port ${port} (${variable}) is already in use on ${host}: stop the program holding it, or let the stack pick a free one: ${variable}=0 npm start`,
            )
          : error,
      ),
    );
    probe.listen(port, host, resolve);
  });
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}
