/**
 * A function longer than a screenful or two is several things under one name: the house keeps each
 * function's own lines (those not inside a function nested in it) to 120 or fewer, in every
 * runtime's code, the tests, the bench and the scripts alike. The count is TypeScript's own parse
 * of every file git tracks, so it cannot drift from what the compilers read.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_OWN_LINES = 120;
const ROOT = new URL('../..', import.meta.url).pathname;

function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mjs', '*.js'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.d.ts'));
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/** Each function's own lines: its body's lines less those strictly inside the functions it holds. */
function longFunctions(file: string, text: string, max = MAX_OWN_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const own = new Set<number>();
      for (let line = lineOf(node.body.getStart(source)); line <= lineOf(node.body.getEnd()); line++) own.add(line);
      const removeNested = (inner: ts.Node): void => {
        if (isFunction(inner)) {
          for (let line = lineOf(inner.getStart(source)) + 1; line < lineOf(inner.getEnd()); line++) own.delete(line);
          return;
        }
        ts.forEachChild(inner, removeNested);
      };
      ts.forEachChild(node.body, removeNested);
      if (own.size > max) found.push(`${file}:${lineOf(node.getStart(source)) + 1} has ${own.size} lines of its own`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the house', () => {
  it(`should hold no function over ${MAX_OWN_LINES} lines of its own`, () => {
    const long = trackedSources().flatMap((file) => longFunctions(file, readFileSync(`${ROOT}/${file}`, 'utf8')));
    expect(long).toEqual([]);
  });

  it('should count only the lines a function holds outside the functions nested in it', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const nested = `function outer() {\n${body(100)}\n  const inner = () => {\n${body(100)}\n  };\n}\n`;
    expect(longFunctions('a.ts', nested)).toEqual([]);
    expect(longFunctions('b.ts', `function flat() {\n${body(121)}\n}\n`)).toEqual(['b.ts:1 has 123 lines of its own']);
  });
});
