// The linter (oxlint, with the repository's .oxlintrc.json) keeps every rule it is there for: the
// recommended rules of JavaScript and TypeScript, the unused-code rule with its exceptions, the
// globals of Node and of the web page, and the layer rules that the import graph test cannot see
// (a Node built-in or zx in pure code, an upward import in a guarded folder). Each rule is broken
// once in a throwaway tree laid out like this repository, linted in one run; what pure code loads
// at run time, which the linter cannot express, is caught by the architecture test's own check.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINT_CONFIG, pureFiles, runTimeLoads } from '../../helpers/pure-files.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { builtinsProbe, layerProbes, PARSE_ERROR, pureProbes, ruleProbes, runTimeLoadProbes, type LintProbe } from './lint-probes.js';

const OXLINT = join(REPO_ROOT, 'node_modules/oxlint/bin/oxlint');

const PURE = pureFiles();
/** Pure files in rooms with layer rules of their own, and in rooms without. */
const PURE_GUARDED = PURE.filter((f) => /^lib\/(agents|verify)\//.test(f));
const PURE_PLAIN = PURE.filter((f) => !PURE_GUARDED.includes(f));
const BUILTINS = builtinModules.filter((name) => !name.startsWith('_'));

const PROBES: LintProbe[] = [
  ...ruleProbes(),
  ...pureProbes([PURE_PLAIN[0]!, PURE_GUARDED[0]!]),
  builtinsProbe(PURE_PLAIN[1]!, BUILTINS),
  builtinsProbe(
    PURE_GUARDED[1]!,
    BUILTINS.map((name) => `node:${name}`),
  ),
  ...layerProbes(PURE_PLAIN[2]!),
];
const LOADS = runTimeLoadProbes(PURE_PLAIN.slice(3));

interface Finding {
  rule: string;
  line: number;
}

interface OxlintReport {
  diagnostics: Array<{ code?: string; filename: string; labels: Array<{ span: { line: number } }> }>;
  number_of_files: number;
}

/** oxlint's findings per file (`no-debugger`, `typescript/no-explicit-any`, a parse error), and how many files it read. */
function lint(dir: string): { byFile: Map<string, Finding[]>; files: number } {
  const run = spawnSync(process.execPath, [OXLINT, '--format', 'json', '.'], { cwd: dir, encoding: 'utf8' });
  if (!run.stdout.startsWith('{')) throw new Error(`oxlint gave no report (exit ${run.status}): ${run.stdout}${run.stderr}`);
  const report = JSON.parse(run.stdout) as OxlintReport;
  const byFile = new Map<string, Finding[]>();
  for (const d of report.diagnostics) {
    const [, plugin, name] = /^(\w+)\((.+)\)$/.exec(d.code ?? '') ?? [];
    const rule = !plugin ? PARSE_ERROR : plugin === 'eslint' ? name! : `${plugin}/${name}`;
    byFile.set(d.filename, [...(byFile.get(d.filename) ?? []), { rule, line: d.labels[0]!.span.line }]);
  }
  return { byFile, files: report.number_of_files };
}

/** The lines reported for the rule, each once (an import two patterns forbid is reported twice). */
const linesOf = (found: Finding[], rule: string): number[] => [...new Set(found.filter((f) => f.rule === rule).map((f) => f.line))].sort((a, b) => a - b);

describe('lint: the rules of .oxlintrc.json', () => {
  let tree: TmpProject;
  let findings: Map<string, Finding[]>;
  let filesRead: number;

  beforeAll(() => {
    const files = [...PROBES, ...LOADS].map((p) => [p.file, p.code]);
    expect(new Set(files.map(([file]) => file)).size).toBe(files.length);
    tree = tmpProject({ [LINT_CONFIG]: readFileSync(join(REPO_ROOT, LINT_CONFIG), 'utf8'), ...Object.fromEntries(files) });
    ({ byFile: findings, files: filesRead } = lint(tree.dir));
  });
  afterAll(() => tree.cleanup());

  it.each(PROBES.map((p) => [p.file, p.expected ?? 'nothing', p]))('%s: %s', (file, _expected, probe) => {
    const found = findings.get(file) ?? [];
    if (probe.expected === null) expect(found).toEqual([]);
    else if (probe.lines) expect(linesOf(found, probe.expected)).toEqual(probe.lines);
    else expect(found.map((f) => f.rule)).toContain(probe.expected);
  });

  it('reads every planted file but those of the folders it ignores (the check itself)', () => {
    expect(PURE_GUARDED.length).toBeGreaterThan(1);
    const planted = [...PROBES, ...LOADS].map((p) => p.file);
    expect(filesRead).toBe(planted.filter((file) => !/^(dist|tests\/fixtures)\//.test(file)).length);
    expect([...findings.keys()].filter((file) => !planted.includes(file))).toEqual([]);
  });

  it('the architecture test finds what pure code loads at run time, which the linter cannot say', () => {
    expect(
      runTimeLoads(
        LOADS.map((p) => p.file),
        tree.dir,
      ),
    ).toEqual(LOADS.flatMap((p) => p.loads));
  });
});
