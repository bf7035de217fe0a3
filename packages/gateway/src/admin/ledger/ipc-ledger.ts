import type { Ledger, LedgerNotes } from './ledger.js';

/** The message a worker sends its primary with a batch of notes (the channel carries others' too). */
export const NOTES_TYPE = 'gateway-ledger:notes';

interface NotesMessage {
  readonly type: typeof NOTES_TYPE;
  readonly notes: LedgerNotes;
}

/** All a worker needs of its channel to the primary: `process` in a `node:cluster` worker (the limits' channel is it too). */
export interface ChannelToLedger {
  send?(message: object, sendHandle: undefined, options: undefined, callback: (error: Error | null) => void): boolean;
}

/** All the primary needs of a forked worker. */
export interface WorkerWithNotes {
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * The ledger of a worker of several without Redis: its notes go to the primary, which keeps the
 * ledger beside the limits it keeps for every worker (`attachLedger`). A batch is written once
 * the channel has taken it; a closed channel fails it (the recorder notes it again).
 */
export function ledgerInPrimary(channel: ChannelToLedger): Pick<Ledger, 'write'> {
  const send = channel.send?.bind(channel);
  return {
    write(notes) {
      return new Promise((resolve, reject) => {
        if (send === undefined) return reject(new Error('no channel to the gateway primary'));
        try {
          send({ type: NOTES_TYPE, notes }, undefined, undefined, (error) => (error === null ? resolve() : reject(error)));
        } catch (error) {
          reject(error as Error);
        }
      });
    },
  };
}

/** Writes the notes `worker` sends into `ledger`, the primary's (see `ledgerInPrimary`). */
export function attachLedger(worker: WorkerWithNotes, ledger: { writeNow(notes: LedgerNotes): void }): void {
  worker.on('message', (message) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === NOTES_TYPE) {
      ledger.writeNow((message as NotesMessage).notes);
    }
  });
}
