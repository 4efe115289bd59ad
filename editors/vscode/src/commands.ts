/**
 * Arguments of the server commands, and which function the cursor is in (its Python qualified
 * name, as Lacuna names functions: `Order.total`). Pure: no `vscode` import.
 */
import type { ExportArgs, RerunArgs } from './protocol';

/** `lacuna.rerun` arguments; `function` only when it is known. */
export function rerunArgs(uri: string, qualname?: string): [RerunArgs] {
  return [qualname ? { uri, function: qualname } : { uri }];
}

/** `lacuna.exportTests` arguments; without a directory the server picks `tests/generated`. */
export function exportArgs(directory?: string): [ExportArgs] {
  return [directory ? { directory } : {}];
}

export interface Pos {
  line: number;
  character: number;
}

/** The parts of `vscode.DocumentSymbol` this needs. */
export interface SymbolNode {
  name: string;
  kind: number;
  range: { start: Pos; end: Pos };
  children?: SymbolNode[];
}

/** `vscode.SymbolKind` values (0-based, unlike LSP's). */
export const SymbolKinds = { Class: 4, Method: 5, Constructor: 8, Function: 11 } as const;

const FUNCTION_KINDS: readonly number[] = [SymbolKinds.Method, SymbolKinds.Constructor, SymbolKinds.Function];
const SCOPE_KINDS: readonly number[] = [SymbolKinds.Class, ...FUNCTION_KINDS];

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

function contains(range: { start: Pos; end: Pos }, pos: Pos): boolean {
  return before(range.start, pos) && before(pos, range.end);
}

/**
 * The qualified name of the function to re-run for a cursor at `pos`: the outermost function
 * around it, prefixed by its classes (`Order.total`). A function nested in another one is
 * explored through the outer one (`outer`, not `outer.<locals>.inner`). `undefined` outside
 * functions.
 */
export function qualnameFromChain(chain: readonly { name: string; isFunction: boolean }[]): string | undefined {
  const i = chain.findIndex((s) => s.isFunction);
  return i < 0 ? undefined : chain.slice(0, i + 1).map((s) => s.name).join('.');
}

/** From document symbols (a Python language extension provides them). */
export function functionAtSymbols(symbols: readonly SymbolNode[], pos: Pos): string | undefined {
  const chain: { name: string; isFunction: boolean }[] = [];
  let level: readonly SymbolNode[] | undefined = symbols;
  while (level && level.length > 0) {
    const inside: SymbolNode | undefined = level.find(
      (s) => SCOPE_KINDS.includes(s.kind) && contains(s.range, pos),
    );
    if (!inside) break;
    chain.push({ name: inside.name, isFunction: FUNCTION_KINDS.includes(inside.kind) });
    level = inside.children;
  }
  return qualnameFromChain(chain);
}

const DEF = /^(?:async\s+)?def\s+([\p{L}_][\p{L}\p{N}_]*)/u;
const CLASS = /^class\s+([\p{L}_][\p{L}\p{N}_]*)/u;

function indentWidth(line: string): number {
  let width = 0;
  for (const c of line) {
    if (c === ' ') width += 1;
    else if (c === '\t') width = (Math.floor(width / 8) + 1) * 8;
    else if (c === '\f') width = 0;
    else break;
  }
  return width;
}

interface LexState {
  depth: number;
  triple: string | null;
  continued: boolean;
}

/** Advances bracket depth, triple-quoted strings and `\` continuations over one line. */
function scan(line: string, state: LexState): void {
  let i = 0;
  state.continued = false;
  while (i < line.length) {
    const c = line[i];
    if (state.triple) {
      if (c === '\\') i += 2;
      else if (line.startsWith(state.triple, i)) {
        i += 3;
        state.triple = null;
      } else i += 1;
      continue;
    }
    if (c === '#') break;
    if (c === '"' || c === "'") {
      if (line.startsWith(c.repeat(3), i)) {
        state.triple = c.repeat(3);
        i += 3;
        continue;
      }
      i += 1;
      while (i < line.length && line[i] !== c) i += line[i] === '\\' ? 2 : 1;
      i += 1;
      continue;
    }
    if ('([{'.includes(c)) state.depth += 1;
    else if (')]}'.includes(c)) state.depth = Math.max(0, state.depth - 1);
    i += 1;
  }
  if (!state.triple && line.endsWith('\\')) state.continued = true;
}

/**
 * Without document symbols: the same answer from the text, by indentation of the logical lines
 * (brackets, triple-quoted strings and `\` continuations do not start one).
 */
export function functionAtText(text: string, line: number): string | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  const stack: { indent: number; name: string; isFunction: boolean }[] = [];
  const state: LexState = { depth: 0, triple: null, continued: false };
  for (let n = 0; n <= line && n < lines.length; n++) {
    const raw = lines[n];
    const starts = state.depth === 0 && state.triple === null && !state.continued;
    scan(raw, state);
    const body = raw.trim();
    if (!starts || body === '' || body.startsWith('#')) continue;
    const indent = indentWidth(raw);
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    const def = DEF.exec(body);
    const cls = def ? null : CLASS.exec(body);
    if (def) stack.push({ indent, name: def[1], isFunction: true });
    else if (cls) stack.push({ indent, name: cls[1], isFunction: false });
  }
  return qualnameFromChain(stack);
}

/**
 * The function to re-run at `pos`: from document symbols when a provider gave a tree of them
 * (`DocumentSymbol`s have `children`; flat `SymbolInformation`s do not help), else from the text.
 */
export function functionAtCursor(
  symbols: readonly unknown[] | undefined,
  text: string,
  pos: Pos,
): string | undefined {
  const tree =
    symbols !== undefined && symbols.length > 0 && symbols.every((s) => typeof s === 'object' && s !== null && 'children' in s)
      ? (symbols as SymbolNode[])
      : undefined;
  return (tree && functionAtSymbols(tree, pos)) ?? functionAtText(text, pos.line);
}
