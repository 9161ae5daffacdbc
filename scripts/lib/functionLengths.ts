import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One function, method, accessor or arrow function, and how many lines it spans (first to last, both counted). */
export interface FunctionLength {
  /** the file, relative to the root it was found under */
  file: string;
  /** its name where it has one (`<anonymous>` for an arrow or expression assigned nowhere) */
  name: string;
  /** 1-based line of its first token */
  line: number;
  lines: number;
}

/** The functions of every TypeScript file under `dirs` (relative to `root`; test files and declarations skipped), longest first. */
export async function functionLengths(root: string, dirs: readonly string[]): Promise<FunctionLength[]> {
  const found: FunctionLength[] = [];
  for (const dir of dirs) {
    for (const path of await typeScriptFiles(join(root, dir))) {
      const source = ts.createSourceFile(path, await readFile(path, 'utf8'), ts.ScriptTarget.Latest, true);
      found.push(...functionsOf(source).map((fn) => ({ ...fn, file: relative(root, path) })));
    }
  }
  return found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

async function typeScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|mts)$/.test(entry.name) && !/\.d\.ts$|\.test\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function functionsOf(source: ts.SourceFile): Omit<FunctionLength, 'file'>[] {
  const found: Omit<FunctionLength, 'file'>[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const line = lineOf(node.getStart(source));
      found.push({ name: nameOf(node, source), line, lines: lineOf(node.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** a function's own name, else the name it is assigned to or stored under */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return parent.name.getText(source);
  return '<anonymous>';
}
