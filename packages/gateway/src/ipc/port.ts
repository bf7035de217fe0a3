import type { Channel } from './channel.js';
import { MESSAGE, type Message, type MessageType, type Question } from './messages.js';

/** A question one side asks the other, with the id its answer carries. */
interface Ask extends Message {
  readonly type: typeof MESSAGE.ask;
  readonly id: number;
  readonly question: Question;
  /** What the question is about, when it needs saying (an `admin` question's request). */
  readonly args?: unknown;
}

/** The answer to the `Ask` of the same id. */
interface Reply extends Message {
  readonly type: typeof MESSAGE.reply;
  readonly id: number;
  readonly answer: unknown;
}

/**
 * What the parts of a process use of its channel to another: messages by type, questions and
 * their answers. The port is the channel's one listener: a message goes to the handler of its
 * type, an answer to the question of its id (a map, not a listener per question: a thousand
 * questions at once add nothing to the channel).
 */
export interface Port {
  /** See `Channel.send`. */
  send<M extends Message>(message: M, sent?: (error: Error | null) => void): boolean;
  /** Handles every message of `type`, after the handlers set before it. */
  on<M extends Message>(type: M['type'], handler: (message: M) => void): void;
  /** Called when the channel closes. */
  onClose(listener: () => void): void;
  connected(): boolean;
  /**
   * Asks the other end `question` and resolves with its answer, or `undefined` when none came
   * within `timeoutMs` (the other end is busy, stopped or gone: the caller decides what that means).
   */
  ask(question: Question, timeoutMs: number, args?: unknown): Promise<unknown>;
  /** Answers the other end's `question` with what `answer` resolves to (`undefined` when it rejects). */
  answer(question: Question, answer: (args: unknown) => Promise<unknown>): void;
}

let lastId = 0;

const typeOf = (message: unknown): unknown => (typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined);

/** The port over `channel`. Messages of a type nobody handles are dropped (`node:cluster`'s own, say). */
export function createPort(channel: Channel): Port {
  const handlers = new Map<MessageType, ((message: never) => void)[]>();
  const answers = new Map<Question, (args: unknown) => Promise<unknown>>();
  const pending = new Map<number, (answer: unknown) => void>();

  const on = <M extends Message>(type: M['type'], handler: (message: M) => void) => {
    const list = handlers.get(type);
    if (list === undefined) handlers.set(type, [handler]);
    else list.push(handler);
  };
  channel.onMessage((message) => {
    const list = handlers.get(typeOf(message) as MessageType) as ((message: unknown) => void)[] | undefined;
    if (list !== undefined) for (const handler of list) handler(message);
  });
  on<Reply>(MESSAGE.reply, (reply) => pending.get(reply.id)?.(reply.answer));
  on<Ask>(MESSAGE.ask, (asked) => {
    const answer = answers.get(asked.question);
    void (answer === undefined ? Promise.resolve(undefined) : answer(asked.args).catch(() => undefined)).then((value) => {
      channel.send({ type: MESSAGE.reply, id: asked.id, answer: value } as Reply);
    });
  });
  channel.onClose(() => {
    for (const resolve of [...pending.values()]) resolve(undefined);
  });

  return {
    send: (message, sent) => channel.send(message, sent),
    on,
    onClose: (listener) => channel.onClose(listener),
    connected: () => channel.connected(),
    ask(question, timeoutMs, args) {
      if (!channel.connected()) return Promise.resolve(undefined);
      const id = ++lastId;
      return new Promise((resolve) => {
        const done = (answer: unknown) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(answer);
        };
        const timer = setTimeout(() => done(undefined), timeoutMs);
        pending.set(id, done);
        const asked: Ask = args === undefined ? { type: MESSAGE.ask, id, question } : { type: MESSAGE.ask, id, question, args };
        if (!channel.send(asked, (error) => error !== null && done(undefined))) done(undefined);
      });
    },
    answer(question, answer) {
      answers.set(question, answer);
    },
  };
}
