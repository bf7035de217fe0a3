/**
 * Redis ran a script and the script raised an error (a Lua runtime error: a value it could not
 * read, say). Nothing the script had yet to write is written: the rate-limit script writes only at
 * its end (`saveTouched`), so a call that fails with this charged nothing. A command's own error
 * inside a script (OOM, READONLY, WRONGTYPE…) is not one: Redis reports those under their own code.
 */
export class ScriptError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'ScriptError';
  }
}

/** Lua's own errors, as Redis 7 (`user_script:`, a function's `user_function:`) and Redis 6 (`Error running script`) word them. */
const LUA_ERROR = /^ERR (?:user_script:|user_function:|Error running script)/;

/** `error` as a `ScriptError` when it is a Lua error Redis answered with; else `error` itself. Throws it. */
export function rethrowScriptError(error: unknown): never {
  throw error instanceof Error && error.name === 'ReplyError' && LUA_ERROR.test(error.message) ? new ScriptError(error) : error;
}
