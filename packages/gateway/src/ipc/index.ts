/**
 * The channel between the gateway's primary and each of its workers. `messages.ts` lists every
 * message and question; `channel.ts` is one end of a channel, over the cluster's IPC
 * (`cluster-channel.ts`) or in memory (`memory-channel.ts`, a gateway run inside a test); `port.ts`
 * is what the parts of a process use of it: messages by type, questions and answers.
 */
export type { Channel } from './channel.js';
export { channelToPrimary, channelToWorker } from './cluster-channel.js';
export { memoryChannelPair } from './memory-channel.js';
export { MESSAGE, QUESTION, type Message, type MessageType, type Question } from './messages.js';
export { createPort, type Port } from './port.js';
