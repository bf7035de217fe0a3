import type { Message } from './messages.js';

/**
 * One end of the channel between the gateway's primary and one of its workers: the cluster's IPC
 * channel in production (`cluster-channel.ts`), or a pair in memory for a gateway run inside a
 * test's process (`memory-channel.ts`). Raw: the parts of the gateway talk through a `Port`
 * (`port.ts`), which is the channel's one listener.
 */
export interface Channel {
  /**
   * Sends `message`; false when the channel is closed (it is then dropped). `sent` is called once
   * the channel took it (`null`) or failed to (the channel closing meanwhile); a failure is never
   * thrown.
   */
  send<M extends Message>(message: M, sent?: (error: Error | null) => void): boolean;
  /** Every message that arrives. Called once, by the port. */
  onMessage(listener: (message: unknown) => void): void;
  /** When the channel closes: the other process is gone, or this one was told to disconnect. */
  onClose(listener: () => void): void;
  /** False once the channel is closed. */
  connected(): boolean;
}
