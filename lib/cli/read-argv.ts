// Splits a command line into the flags of a flag table, in the conventions yargs had for them
// (so scripts written against it keep working) at none of its start-up cost:
// `--name VALUE`, `--name=VALUE`, `-n VALUE`, `-nVALUE`, `-n=VALUE`, switches grouped (`-vl`),
// `--no-NAME` for a switch off, `--` ending the flags. A flag that takes a value and is followed
// by another flag (or nothing) gets '' (`--rollback --json`); a negative number is a value.
// node:util.parseArgs refuses or swallows those (`--rollback --json` would take `--json`).

export interface ArgvFlag {
  name: string;
  /** A one-letter alias is `-x`; a longer one another long spelling (`--github-label`). */
  alias?: string;
  /** Takes a value; otherwise a switch. */
  takesValue: boolean;
}

export interface ReadArgv {
  /** Every value given for each flag (long name), in order; a switch's are booleans. */
  values: Map<string, Array<string | boolean>>;
  /** Words that are no flag's, in order (everything after `--` included). */
  positional: string[];
  /** Flags of no row, as typed without their value (`--bogus`, `-x`), in order. */
  unknown: string[];
}

const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/** Another flag rather than a value: starts with '-' and is more than a dash or a negative number. */
function looksLikeFlag(word: string): boolean {
  return word.startsWith('-') && word !== '-' && !NEGATIVE_NUMBER.test(word);
}

export function readArgv(argv: readonly string[], flags: readonly ArgvFlag[]): ReadArgv {
  const byName = new Map<string, ArgvFlag>(flags.map((flag) => [flag.name, flag]));
  const byAlias = new Map<string, ArgvFlag>();
  for (const flag of flags) {
    if (flag.alias === undefined) continue;
    if (flag.alias.length === 1) byAlias.set(flag.alias, flag);
    else byName.set(flag.alias, flag);
  }
  const result: ReadArgv = { values: new Map(), positional: [], unknown: [] };
  const add = (flag: ArgvFlag, value: string | boolean) => result.values.set(flag.name, [...(result.values.get(flag.name) ?? []), value]);
  let i = 0;
  /** A value flag's value: the inline one, else the next word unless it is a flag. */
  const valueOf = (inline: string | undefined): string => {
    if (inline !== undefined) return inline;
    const next = argv[i + 1];
    if (next === undefined || looksLikeFlag(next)) return '';
    i++;
    return next;
  };
  for (; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      result.positional.push(...argv.slice(i + 1));
      break;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const inline = eq === -1 ? undefined : word.slice(eq + 1);
      const flag = byName.get(name);
      const negated = name.startsWith('no-') ? byName.get(name.slice(3)) : undefined;
      if (flag?.takesValue) add(flag, valueOf(inline));
      else if (flag) add(flag, inline === undefined ? true : inline !== 'false');
      else if (negated && !negated.takesValue && inline === undefined) add(negated, false);
      else result.unknown.push(`--${name}`);
    } else if (looksLikeFlag(word)) {
      // A group of short flags: switches, then at most one that takes the rest (or the next word).
      for (let j = 1; j < word.length; j++) {
        const flag = byAlias.get(word[j]!);
        if (flag === undefined) {
          result.unknown.push(`-${word[j]}`);
          continue;
        }
        if (!flag.takesValue) {
          add(flag, true);
          continue;
        }
        const rest = word.slice(j + 1);
        add(flag, valueOf(rest === '' ? undefined : rest.replace(/^=/, '')));
        break;
      }
    } else {
      result.positional.push(word);
    }
  }
  return result;
}
