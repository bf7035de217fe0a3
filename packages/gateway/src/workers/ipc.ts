/*
 * What the primary and its workers say to each other over the cluster's IPC channel. Every
 * message is an object whose `type` starts with `gateway:`, so that other users of the channel
 * (Node's cluster itself, a limiter shared through the primary) can tell theirs apart.
 */

/** A question one side asks the other, with the id its answer carries. */
export interface Ask {
  readonly type: 'gateway:ask';
  readonly id: number;
  readonly question: Question;
  /** What the question is about, when it needs saying (an `admin` question's request). */
  readonly args?: unknown;
}

/** The answer to the `Ask` of the same id. */
export interface Reply {
  readonly type: 'gateway:reply';
  readonly id: number;
  readonly answer: unknown;
}

/**
 * The questions: a worker's own readiness (primary to worker; `true` or the names of what is not
 * ready), its metrics (primary to worker; prom-client's JSON), whether every other worker is
 * ready (worker to primary; the names of those that are not), and what the admin API asks of a
 * lone worker that keeps the limits itself (primary to worker; see `admin/worker-source.ts`).
 */
export type Question = 'readiness' | 'metrics' | 'others-readiness' | 'admin';

/** A worker tells the primary it listens, with the details of the `gateway listening` line. */
export interface Listening {
  readonly type: 'gateway:listening';
  readonly url: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The primary tells a worker to hand its connections over to its successor and exit. */
export interface HandOver {
  readonly type: 'gateway:hand-over';
}

/** A worker about to exit after a hand-over: its counters, which the gateway's totals keep. */
export interface FinalMetrics {
  readonly type: 'gateway:final-metrics';
  readonly metrics: unknown;
}

export type Message = Ask | Reply | Listening | HandOver | FinalMetrics;

/** Whether `value` is one of the gateway's messages (of `type`, when given). */
export function isMessage<T extends Message['type']>(value: unknown, type: T): value is Extract<Message, { type: T }> {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;
}

/** One end of the channel: a worker's `process`, or the primary's `cluster.Worker`. */
export interface Channel {
  send(message: Message): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  isConnected(): boolean;
}

let lastId = 0;

/**
 * Asks the other end `question` and resolves with its answer, or with `undefined` when none came
 * within `timeoutMs` (the other end is busy, stopped, or gone: the caller decides what that means).
 */
export function ask(channel: Channel, question: Question, timeoutMs: number, args?: unknown): Promise<unknown> {
  if (!channel.isConnected()) return Promise.resolve(undefined);
  const id = ++lastId;
  return new Promise((resolve) => {
    const done = (answer: unknown) => {
      clearTimeout(timer);
      channel.off('message', onMessage);
      resolve(answer);
    };
    const onMessage = (message: unknown) => {
      if (isMessage(message, 'gateway:reply') && message.id === id) done(message.answer);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    channel.on('message', onMessage);
    try {
      channel.send(args === undefined ? { type: 'gateway:ask', id, question } : { type: 'gateway:ask', id, question, args });
    } catch {
      done(undefined);
    }
  });
}

/** Answers the questions the other end asks, with `answers[question](args)`; a question without an answer gets `undefined`. */
export function answerQuestions(channel: Channel, answers: Partial<Record<Question, (args: unknown) => Promise<unknown>>>): void {
  channel.on('message', (message) => {
    if (!isMessage(message, 'gateway:ask')) return;
    const answer = answers[message.question];
    void (answer === undefined ? Promise.resolve(undefined) : answer(message.args).catch(() => undefined)).then((value) => {
      if (channel.isConnected()) channel.send({ type: 'gateway:reply', id: message.id, answer: value });
    });
  });
}
