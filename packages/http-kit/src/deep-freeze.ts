/**
 * Freezes `value` and every plain object and array inside it, so that no part of a parsed
 * configuration can change after start. Instances of classes (a `URL`, a `BlockList`) are left
 * as they are: their state lives in private fields that freezing would not reach anyway, and a
 * library handed one may rightly set a property on it.
 */
export function deepFreeze<T>(value: T): T {
  if (!isPlainData(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

function isPlainData(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}
