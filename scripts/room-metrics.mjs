// How much the rooms of lib/ are tangled: the pairs of folders that import each other (imports,
// type imports and import() alike), and the files that assign a field of RunState or change an
// array, set or map held in one (found by the type checker, not by the text).
// Usage: node scripts/room-metrics.mjs [project root] [pairs | a type name other than RunState]
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname, normalize, relative } from 'node:path';
const root = process.argv[2] ?? '.';
const LIB = join(root, 'lib');
const files = readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
// folder pairs
const folderOf = (f) => (f.includes('/') ? f.split('/')[0] : f);
const edges = new Set();
for (const from of files) {
  const text = readFileSync(join(LIB, from), 'utf8');
  const specs = [...text.matchAll(/^(?:import|export)[^'"]*?from '(\.[^']+)'/gms), ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]);
  for (const s of specs) {
    const to = normalize(join(dirname(from), s)).replace(/\.js$/, '.ts');
    const a = folderOf(from),
      b = folderOf(to);
    if (a !== b) edges.add(`${a}|${b}`);
  }
}
const pairs = [...edges].filter((e) => {
  const [a, b] = e.split('|');
  return a < b && edges.has(`${b}|${a}`);
});
console.log('mutual folder pairs:', pairs.length, pairs.map((p) => p.replace('|', '<->')).join(' '));
if (process.argv[3] === 'pairs') process.exit(0);
const cfg = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(
  cfg.fileNames.filter((f) => f.includes('/lib/')),
  cfg.options,
);
const checker = program.getTypeChecker();
const MUT = new Set(['push', 'add', 'delete', 'set', 'splice', 'clear', 'pop', 'shift', 'unshift']);
const writers = new Map();
const typeName = (e) => {
  const t = checker.getTypeAtLocation(e);
  const s = t.aliasSymbol ?? t.getSymbol();
  return s?.getName();
};
const target = process.argv[3] ?? 'RunState';
for (const sf of program.getSourceFiles()) {
  if (!sf.fileName.includes('/lib/')) continue;
  const rel = relative(LIB, sf.fileName);
  const hits = new Set();
  const onLhs = (lhs) => {
    if (ts.isPropertyAccessExpression(lhs) && typeName(lhs.expression) === target) hits.add(lhs.name.text);
  };
  const visit = (n) => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment)
      onLhs(n.left);
    if (
      (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
      (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)
    )
      onLhs(n.operand);
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && MUT.has(n.expression.name.text)) {
      const obj = n.expression.expression;
      if (ts.isPropertyAccessExpression(obj) && typeName(obj.expression) === target) hits.add(obj.name.text + '.' + n.expression.name.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (hits.size) writers.set(rel, [...hits].sort());
}
const folders = new Set([...writers.keys()].map(folderOf));
console.log(`files writing ${target} fields:`, writers.size, 'in folders:', folders.size);
for (const [f, h] of [...writers].sort()) console.log('  ', f, h.join(' '));
