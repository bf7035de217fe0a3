import type { Channel } from './channel.js';

/**
 * Two ends of a channel in one process, for a gateway whose primary and worker halves run in a
 * test's process: what one sends, the other receives on a later turn of the event loop, copied
 * as the cluster's `json` serialization copies it (so neither end can share an object with the
 * other, as no two processes can). `close()` closes both ends, as a worker's exit does.
 */
export function memoryChannelPair(): { readonly primary: Channel; readonly worker: Channel; close(): void } {
  let open = true;
  const ends = [makeEnd(), makeEnd()] as const;
  function makeEnd() {
    const listeners: ((message: unknown) => void)[] = [];
    const closers: (() => void)[] = [];
    return { listeners, closers };
  }
  const channel = (own: (typeof ends)[number], other: (typeof ends)[number]): Channel => ({
    send(message, sent) {
      if (!open) return false;
      const copy: unknown = JSON.parse(JSON.stringify(message));
      setImmediate(() => {
        if (open) for (const listener of other.listeners) listener(copy);
      });
      sent?.(null);
      return true;
    },
    onMessage: (listener) => void own.listeners.push(listener),
    onClose: (listener) => void own.closers.push(listener),
    connected: () => open,
  });
  return {
    primary: channel(ends[0], ends[1]),
    worker: channel(ends[1], ends[0]),
    close() {
      if (!open) return;
      open = false;
      for (const end of ends) for (const closer of end.closers) closer();
    },
  };
}
