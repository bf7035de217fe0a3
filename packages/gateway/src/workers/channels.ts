import type { Worker } from 'node:cluster';
import type { Channel, Message } from './ipc.js';

/** The primary's end of a worker's channel. A send to a worker that is gone is dropped. */
export function workerChannel(worker: Worker): Channel {
  return {
    send: (message: Message) => worker.isConnected() && worker.send(message, undefined, undefined, () => {}),
    on: (event, listener) => worker.on(event, listener),
    off: (event, listener) => worker.off(event, listener),
    isConnected: () => worker.isConnected(),
  };
}

/** A worker's end of its channel to the primary. A send after the primary is gone is dropped. */
export function primaryChannel(): Channel {
  return {
    send: (message: Message) => process.connected && process.send?.(message, undefined, undefined, () => {}),
    on: (event, listener) => process.on(event, listener),
    off: (event, listener) => process.off(event, listener),
    isConnected: () => process.connected,
  };
}
