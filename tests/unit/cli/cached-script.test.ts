// A bundle run as a classic script from V8's code cache (lib/cli/cached-script.ts): the cache the
// build made is taken, and one made for other text — even text V8 itself cannot tell apart, of
// the same length — or a damaged one is never given to V8; the script then runs compiled from
// its source. Loading only reads: nothing is written beside the script.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Script } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheOf, codeCachePath, loadCachedScript, SCRIPT_URL_NAME } from '../../../lib/cli/cached-script.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-cached-script-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A script whose exported function answers `answer`, compiled lazily (so the cache holds what a run compiled). */
const scriptText = (answer: string) => `module.exports.answer = function answer() { return ${JSON.stringify(answer)}; };
module.exports.url = ${SCRIPT_URL_NAME};
module.exports.required = typeof require('node:path').join;\n`;

// Each load compiles a file of a new name: V8 keeps what this process compiled by text and
// name, and would answer a second load of one file from memory, whatever its cache holds.
let files = 0;

/** `text` as a new script file, with `cache` beside it when given. */
function writeScript(text: string, cache?: Buffer): string {
  const file = join(dir, `main-${++files}.script.js`);
  writeFileSync(file, text);
  if (cache) writeFileSync(codeCachePath(file), cache);
  return file;
}

/** The cache of `text` as the build makes it: the script loaded, its function run, the cache taken. */
function makeCache(text: string): Buffer {
  const loaded = loadCachedScript(writeScript(text));
  (loaded.exports.answer as () => string)();
  return codeCacheOf(loaded);
}

describe('loadCachedScript', () => {
  it('runs the script with module, require and its own URL, and without a cache compiles it from source', () => {
    const file = writeScript(scriptText('one'));
    const loaded = loadCachedScript(file);
    expect((loaded.exports.answer as () => string)()).toBe('one');
    expect(loaded.exports.url).toBe(`file://${file}`);
    expect(loaded.exports.required).toBe('function');
    expect(loaded.fromCache).toBe(false);
  });

  it('takes the code cache made for the same text', () => {
    const again = loadCachedScript(writeScript(scriptText('one'), makeCache(scriptText('one'))));
    expect(again.fromCache).toBe(true);
    expect((again.exports.answer as () => string)()).toBe('one');
  });

  it('gives V8 no cache made for other text of the same length, which V8 alone would take', () => {
    const cache = makeCache(scriptText('one'));
    // V8 knows a cache's source by its length only: given the old code for the new text, it takes it.
    const wrapped = (text: string) => `(function (exports, require, module, __filename, __dirname, ${SCRIPT_URL_NAME}) {${text}\n})`;
    const fooled = new Script(wrapped(scriptText('two')), { filename: join(dir, 'fooled.js'), cachedData: cache.subarray(64) });
    expect(fooled.cachedDataRejected).toBe(false);
    const loaded = loadCachedScript(writeScript(scriptText('two'), cache));
    expect(loaded.fromCache).toBe(false);
    expect((loaded.exports.answer as () => string)()).toBe('two');
  });

  it("gives V8 no cache whose data was changed after it was made, which V8 alone would run in the script's place", () => {
    const text = `module.exports.answer = function answer() { return "the script's own answer"; };\n`;
    const cache = makeCache(text);
    // V8 checks no checksum of its data: the literal changed in place is what the function returns.
    const at = cache.indexOf("the script's own answer");
    expect(at).toBeGreaterThan(64);
    const planted = Buffer.from(cache);
    planted.write('a planted other answer!', at, 'latin1');
    const fooled = new Script(`(function (exports, require, module, __filename, __dirname, ${SCRIPT_URL_NAME}) {${text}\n})`, {
      filename: join(dir, 'fooled.js'),
      cachedData: planted.subarray(64),
    });
    expect(fooled.cachedDataRejected).toBe(false);
    const loaded = loadCachedScript(writeScript(text, planted));
    expect(loaded.fromCache).toBe(false);
    expect((loaded.exports.answer as () => string)()).toBe("the script's own answer");
  });

  it.each([
    ['a truncated cache', (cache: Buffer) => cache.subarray(0, 40)],
    ['only the digests', (cache: Buffer) => cache.subarray(0, 64)],
    ['damaged V8 data', (cache: Buffer) => Buffer.concat([cache.subarray(0, 64), Buffer.alloc(cache.length - 64, 7)])],
    ['an empty file', () => Buffer.alloc(0)],
  ])('runs from source past %s', (_name, damage) => {
    const loaded = loadCachedScript(writeScript(scriptText('one'), damage(makeCache(scriptText('one')))));
    expect(loaded.fromCache).toBe(false);
    expect((loaded.exports.answer as () => string)()).toBe('one');
  });

  it('writes nothing: with no cache there is still none after a load', () => {
    const file = writeScript(scriptText('one'));
    loadCachedScript(file);
    expect(readdirSync(dir)).toEqual([basename(file)]);
  });
});
