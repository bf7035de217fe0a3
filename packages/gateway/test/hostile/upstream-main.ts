// The recording upstream of the gateway tests (`/echo`, `/big`, ...) in a process of its own, so
// that the attack clients in the test process cannot starve it: `node --import tsx upstream-main.ts`
// logs `{"url": ...}` once it listens, and stops on SIGTERM.
import { startRecordingUpstream } from '../support/index.js';

const upstream = await startRecordingUpstream();
process.stdout.write(`${JSON.stringify({ url: upstream.url })}\n`);
process.once('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
