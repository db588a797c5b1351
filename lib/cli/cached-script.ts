// A bundle run as a classic script with V8's code cache. Node 20 keeps no compiled code of an ES
// module between starts, so a large bundle is parsed again at every start, and each function is
// compiled again the first time it runs. A classic script (vm.Script) takes `cachedData`: V8's
// compiled code of that very source, made by the build from a run of the bundle
// (scripts/code-cache.mjs) and kept beside it in dist/, where ralph's code itself is. ralph
// never writes the cache at run time: it only reads it.
//
// The cache is used only when it is the one made for these bytes. V8 itself refuses a cache of
// another V8 version or other V8 flags (it then compiles from source, as without a cache), but
// it recognises the source only by its length, and in a release build it checks no checksum of
// its data: data changed in place (a damaged copy, or one written over) is deserialised as it
// is, and runs other code than the script's or stops the process with a V8 fatal error. So each
// cache starts with the SHA-256 of the text it was made from and the SHA-256 of V8's data that
// follows, and a cache made for any other text, or whose data is not what was made, is not given
// to V8 at all. A missing, short, stale or damaged cache only costs the compile it would have
// saved.
//
// The script is the bundle in CommonJS form, wrapped in a function given `exports`, `require`,
// `module` and the bundle's own URL (what `import.meta.url` says in the ES module). It holds no
// `import()`: the build turns each into a `require` (a function compiled from a code cache has no
// dynamic-import callback in Node 20).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** The name the bundle's `import.meta.url` is given in its CommonJS form (scripts/bundle.mjs defines it). */
export const SCRIPT_URL_NAME = '__ralphScriptUrl';

const DIGEST_BYTES = 32;

export interface LoadedScript {
  /** What the script put on `module.exports`. */
  exports: Record<string, unknown>;
  /** The compiled script: the build makes the cache from it after a run (`codeCacheOf`). */
  script: Script;
  /** True when V8 took its code from the cache. */
  fromCache: boolean;
  /** The SHA-256 of the script's text as compiled: what its cache is made for. */
  digest: Buffer;
}

/** Where the code cache of the script at `file` is kept. */
export function codeCachePath(file: string): string {
  return `${file}.v8cache`;
}

/**
 * Compiles and runs the script at `file` (with its code cache when it has a valid one); returns its
 * exports. `name` is what stack traces call the script: V8 keeps in a cache the name the script
 * was compiled under when it was made, and shows that one when the cache is used, so a script
 * whose cache is made in one place and used in another needs a name that does not depend on it.
 */
export function loadCachedScript(file: string, name = file): LoadedScript {
  const text = readFileSync(file);
  // Hashed as read: the bytes hash several times faster than the string they decode to.
  const digest = createHash('sha256').update(WRAPPER_START).update(text).update(WRAPPER_END).digest();
  const source = `${WRAPPER_START}${text.toString('utf8')}${WRAPPER_END}`;
  const cachedData = readCache(file, digest);
  const script = new Script(source, { filename: name, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);
  return { exports: module.exports, script, fromCache: cachedData !== undefined && !script.cachedDataRejected, digest };
}

/** The code cache file's bytes for a loaded script (what V8 compiled of it so far): the digest of its text, that of V8's data, then the data. */
export function codeCacheOf(loaded: LoadedScript): Buffer {
  const data = loaded.script.createCachedData();
  return Buffer.concat([loaded.digest, sha256(data), data]);
}

const WRAPPER_START = `(function (exports, require, module, __filename, __dirname, ${SCRIPT_URL_NAME}) {`;
const WRAPPER_END = '\n})';

/** V8's data from the cache beside `file`, when the cache was made for text of this digest and its data is whole. */
function readCache(file: string, digest: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(codeCachePath(file));
  } catch {
    return undefined;
  }
  const header = 2 * DIGEST_BYTES;
  if (bytes.length <= header || !bytes.subarray(0, DIGEST_BYTES).equals(digest)) return undefined;
  const data = bytes.subarray(header);
  return sha256(data).equals(bytes.subarray(DIGEST_BYTES, header)) ? data : undefined;
}

function sha256(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}
