import { MESSAGE, type Message, type Port } from '../../ipc/index.js';
import type { Ledger, LedgerNotes } from './ledger.js';

/** A worker's notes for its primary's ledger. */
interface NotesMessage extends Message {
  readonly type: typeof MESSAGE.ledgerNotes;
  readonly notes: LedgerNotes;
}

/**
 * The ledger of a worker of several without Redis: its notes go to the primary over `port`, which
 * keeps the ledger beside the limits it keeps for every worker (`attachLedger`). A batch is
 * written once the channel has taken it; a closed channel fails it (the recorder notes it again).
 */
export function ledgerInPrimary(port: Port): Pick<Ledger, 'write'> {
  return {
    write(notes) {
      return new Promise((resolve, reject) => {
        const message: NotesMessage = { type: MESSAGE.ledgerNotes, notes };
        if (!port.send(message, (error) => (error === null ? resolve() : reject(error)))) reject(new Error('the channel to the gateway primary is closed'));
      });
    },
  };
}

/** Writes the notes a worker sends over `port` into `ledger`, the primary's (see `ledgerInPrimary`). */
export function attachLedger(port: Port, ledger: { writeNow(notes: LedgerNotes): void }): void {
  port.on<NotesMessage>(MESSAGE.ledgerNotes, (message) => ledger.writeNow(message.notes));
}
