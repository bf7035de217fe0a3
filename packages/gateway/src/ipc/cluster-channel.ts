import type { Worker } from 'node:cluster';
import type { Channel } from './channel.js';

const ignore = () => {};

/** The primary's end of a worker's channel (the `node:cluster` `Worker`). */
export function channelToWorker(worker: Worker): Channel {
  return {
    send(message, sent = ignore) {
      if (!worker.isConnected()) return false;
      worker.send(message, undefined, undefined, sent);
      return true;
    },
    onMessage: (listener) => void worker.on('message', listener),
    onClose: (listener) => void worker.on('disconnect', listener),
    connected: () => worker.isConnected(),
  };
}

/** A worker's end of its channel to the primary (the worker's `process`). */
export function channelToPrimary(): Channel {
  return {
    send(message, sent = ignore) {
      if (!process.connected || process.send === undefined) return false;
      try {
        process.send(message, undefined, undefined, sent);
      } catch (error) {
        // Node throws when the channel closed since `connected` was read.
        sent(error as Error);
      }
      return true;
    },
    onMessage: (listener) => void process.on('message', listener),
    onClose: (listener) => void process.on('disconnect', listener),
    connected: () => process.connected,
  };
}
