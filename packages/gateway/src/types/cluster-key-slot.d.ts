// cluster-key-slot (the CRC16 slot function ioredis itself uses) ships no types.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0–16383) of a key, hash tags honoured. */
  export default function calculateSlot(key: string | Buffer): number;
}
