import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** Subscribes `listener` to each channel named; returns what undoes every subscription. */
export function subscribeAll(listeners: Readonly<Record<string, (message: never) => void>>): () => void {
  const entries = Object.entries(listeners).map(
    ([name, listener]) => [name, listener as unknown as (message: unknown, name: string | symbol) => void] as const,
  );
  for (const [name, listener] of entries) subscribe(name, listener);
  return () => {
    for (const [name, listener] of entries) unsubscribe(name, listener);
  };
}
