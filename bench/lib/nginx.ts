import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@animal-store/testkit';
import { startBenchProcess, type Service } from './services.js';

/** Why the nginx reference cannot run here, or `false` when it can. */
export function nginxSkipReason(): string | false {
  return spawnSync('nginx', ['-v']).status === 0 ? false : 'nginx is not installed (apt-get install nginx)';
}

/**
 * nginx as a plain reverse proxy in front of `upstreamUrl`, with an upstream keep-alive pool: what
 * a proxy can do on this machine. One worker, like the one gateway process it is compared with.
 */
export async function startNginx(dir: string, upstreamUrl: string): Promise<Service> {
  const port = await freePort();
  const upstream = new URL(upstreamUrl);
  const prefix = join(dir, 'nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log stderr error;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  upstream core { server ${upstream.hostname}:${upstream.port}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://core;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  );
  // nginx proxies /healthz to the core: it answers once both are up.
  return startBenchProcess('nginx', { command: ['nginx', '-p', prefix, '-c', conf, '-g', 'daemon off;'], env: {} }, port);
}
