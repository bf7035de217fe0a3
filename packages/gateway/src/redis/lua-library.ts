import { createHash } from 'node:crypto';

/**
 * Lua code that Redis runs in either of its two ways: as a script (EVAL, EVALSHA: every Redis)
 * and as a function of a library (FUNCTION LOAD once, then FCALL: Redis 7 and later).
 *
 * A script's body runs whole at every call, so each call makes again every function the code
 * defines: for the rate-limit script, about 110,000 instructions of redis-server a call (about 40
 * % of what a call costs beyond its requests; `npm run bench:script -- --instructions`). A
 * library's functions are made once and kept. Not at load time, though: while a library loads,
 * Redis gives it only `redis.register_function` (no `string`, `struct` or `redis.call`), so the
 * code is made at the function's first call, into locals that later calls share.
 */
export interface LuaLibrary {
  /** The library's name, one per version of its code (`FUNCTION LOAD` keeps one of each). */
  readonly name: string;
  /** The function it registers, named after the same version (FCALL's first argument). */
  readonly fn: string;
  /** What `FUNCTION LOAD` takes. */
  readonly code: string;
}

/** The same code as a script (EVAL) and as a library; both run `run(KEYS, ARGV)`. */
export interface LuaCode {
  readonly script: string;
  readonly library: LuaLibrary;
}

/**
 * `body` defines, among its locals, `local function run(keys, args)`, whose reply is the call's;
 * every other statement of the body runs once per Lua state that holds the library (once per
 * call for the script). So what a call changes the body must set again at the start of `run`.
 * `name`: letters, digits and `_`, the library's prefix.
 */
export function luaCode(name: string, body: string): LuaCode {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`a Lua library's name takes letters, digits and _ only: ${name}`);
  const made = `local function make()\n${body}\nreturn run\nend\n`;
  // The version: a gateway of another release loads its own library beside this one, so a fleet
  // mid-upgrade never replaces the code the other half calls.
  const version = createHash('sha1').update(body).digest('hex').slice(0, 16);
  const fn = `${name}_${version}`;
  return {
    script: `${made}return make()(KEYS, ARGV)\n`,
    library: {
      name: `${name}_lib_${version}`,
      fn,
      code: `#!lua name=${name}_lib_${version}\n${made}local run\nredis.register_function('${fn}', function(keys, args)\n  if run == nil then run = make() end\n  return run(keys, args)\nend)\n`,
    },
  };
}
