import type { LuaLibrary } from './lua-library.js';
import type { ScriptArgument } from './redis-client-api.js';
import { rethrowScriptError } from './script-error.js';

/** A connection, as far as loading a library goes (an ioredis client). */
interface Connection {
  function(subcommand: 'LOAD', code: string): Promise<unknown>;
}

type Run = (keys: readonly string[], args: readonly ScriptArgument[]) => Promise<unknown>;

/** A reply of Redis's own (not a connection's failure), as ioredis gives it. */
const replyError = (error: unknown): error is Error => error instanceof Error && error.name === 'ReplyError';

/** A library of this version is on that Redis already: loaded by another instance, or before. */
const LOADED = /already exists/i;
/** Redis lost its functions (FUNCTION FLUSH, a node that joined a cluster empty). */
const NOT_FOUND = /^ERR Function not found/;
/** Redis runs no functions for this client: older than 7 (no such command), or its ACL denies them. */
const REFUSED = /unknown command|unknown subcommand|^NOPERM/i;

/**
 * Lua libraries (`lua-library.ts`) run as Redis Functions where Redis has them, and as scripts
 * where it has not: `FUNCTION LOAD` on every connection the request path uses (each master of a
 * cluster), then FCALL. A Redis that refuses the load (older than 7, or an ACL without FUNCTION)
 * is sent the same code as a script (EVALSHA) from then on; one that fails it otherwise (over
 * its memory, say) fails that call alone, and a later call loads again. A Redis that lost its functions
 * answers an FCALL with "Function not found", which runs nothing and charges nothing: they are
 * loaded again and the call is sent once more.
 */
export function createFunctions(masters: () => Connection[], within: <T>(reply: Promise<T>) => Promise<T>) {
  const libraries: LuaLibrary[] = [];
  /** Whether Redis runs them: unknown until a load or a call tells. */
  let supported: boolean | undefined;
  let loading: Promise<boolean> | undefined;

  /** Loads every library on every master; false when Redis refuses functions. */
  async function loadAll(): Promise<boolean> {
    try {
      await Promise.all(
        masters().map(async (connection) => {
          for (const library of libraries) {
            await within(connection.function('LOAD', library.code)).catch((error: unknown) => {
              if (!(replyError(error) && LOADED.test(error.message))) throw error;
            });
          }
        }),
      );
      return true;
    } catch (error) {
      // Any other error (OOM, READONLY, a lost connection) fails this call alone, and the next tries again.
      if (replyError(error) && REFUSED.test(error.message)) return false;
      throw error;
    }
  }

  /** One load at a time, however many calls found the functions gone together. */
  function load(): Promise<boolean> {
    loading ??= loadAll().then(
      (loaded) => {
        supported = loaded;
        loading = undefined;
        return loaded;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  }

  return {
    /** Loads the libraries defined so far (the client's warm-up): afterwards calls go straight to FCALL or to the script. */
    async load(): Promise<void> {
      if (libraries.length > 0) await load();
    },
    /** What runs `library`: `fcall` while Redis has functions, `script` where it has not. */
    define(library: LuaLibrary, fcall: Run, script: Run): Run {
      // Once each: several limiters on one client define the same library.
      if (!libraries.some((known) => known.name === library.name)) libraries.push(library);
      const fallBack = async (error: unknown, keys: readonly string[], args: readonly ScriptArgument[]): Promise<unknown> => {
        // A Lua error is a script's error, as for EVALSHA; an OOM or a lost connection fails the call.
        if (!replyError(error) || !(NOT_FOUND.test(error.message) || REFUSED.test(error.message))) return rethrowScriptError(error);
        // Not found (loaded again), or a Redis that runs no functions for this client (the script).
        if (await load()) return fcall(keys, args).catch(rethrowScriptError);
        return script(keys, args);
      };
      return (keys, args) => {
        if (supported === false) return script(keys, args);
        return fcall(keys, args).catch((error: unknown) => fallBack(error, keys, args));
      };
    },
  };
}
