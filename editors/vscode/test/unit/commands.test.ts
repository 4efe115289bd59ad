import { describe, expect, it } from 'vitest';
import {
  type SymbolNode,
  SymbolKinds,
  exportArgs,
  functionAtCursor,
  functionAtSymbols,
  functionAtText,
  rerunArgs,
} from '../../src/commands';
import { SymbolKind } from '../mocks/vscode';

describe('server command arguments', () => {
  it('re-runs a file, or one function only when it is known', () => {
    expect(rerunArgs('file:///p/shop/orders.py')).toEqual([{ uri: 'file:///p/shop/orders.py' }]);
    expect(rerunArgs('file:///p/shop/orders.py', 'Order.total')).toEqual([
      { uri: 'file:///p/shop/orders.py', function: 'Order.total' },
    ]);
    expect(rerunArgs('file:///p/a.py', undefined)[0]).not.toHaveProperty('function');
    expect(rerunArgs('file:///p/a.py', '')[0]).not.toHaveProperty('function');
  });

  it('exports to the chosen directory, or lets the server choose', () => {
    expect(exportArgs('/p/tests/generated')).toEqual([{ directory: '/p/tests/generated' }]);
    expect(exportArgs()).toEqual([{}]);
  });
});

const r = (sl: number, el: number) => ({ start: { line: sl, character: 0 }, end: { line: el, character: 80 } });

const SYMBOLS: SymbolNode[] = [
  { name: 'MAX_LINES', kind: SymbolKind.Variable, range: r(0, 0) },
  {
    name: 'Order',
    kind: SymbolKind.Class,
    range: r(2, 30),
    children: [
      { name: '__init__', kind: SymbolKind.Constructor, range: r(3, 6) },
      { name: 'status', kind: SymbolKind.Variable, range: r(7, 7) },
      {
        name: 'total',
        kind: SymbolKind.Method,
        range: r(8, 20),
        children: [{ name: 'line_total', kind: SymbolKind.Function, range: r(9, 11) }],
      },
    ],
  },
  { name: 'submit', kind: SymbolKind.Function, range: r(32, 40) },
];

describe('function at the cursor', () => {
  it('uses vscode.SymbolKind numbering', () => {
    expect(SymbolKinds).toEqual({
      Class: SymbolKind.Class,
      Method: SymbolKind.Method,
      Constructor: SymbolKind.Constructor,
      Function: SymbolKind.Function,
    });
  });

  it('from document symbols: the qualified name of the outermost function', () => {
    const at = (line: number) => functionAtSymbols(SYMBOLS, { line, character: 4 });
    expect(at(15)).toBe('Order.total');
    expect(at(10)).toBe('Order.total'); // nested functions are explored through their parent
    expect(at(4)).toBe('Order.__init__');
    expect(at(35)).toBe('submit');
    expect(at(7)).toBeUndefined(); // class body, outside methods
    expect(at(0)).toBeUndefined();
    expect(at(31)).toBeUndefined();
  });

  const SOURCE = [
    'import os', //                                0
    '', //                                         1
    'class Order:', //                             2
    '    """An order.', //                         3
    'def not_a_function(): inside a docstring', // 4
    '"""', //                                      5
    '', //                                         6
    '    def total(self,', //                      7
    'x=(1,', //                                    8
    '  2)):', //                                   9
    '        # comment at column 0 below', //      10
    '# def fake():', //                            11
    '        def helper():', //                    12
    '            return 1', //                     13
    '', //                                         14
    '        return helper() + \\', //             15
    '1', //                                        16
    '', //                                         17
    '    async def pay(self):', //                 18
    '        if os.path.exists("x"): pass', //     19
    '', //                                         20
    'def load(name):', //                          21
    '    s = "def inner():"', //                   22
    '    return s', //                             23
    'VALUE = 1', //                                24
    'class Ünïcode:', //                           25
    '\tdef método(self): return 1', //             26
  ].join('\n');

  it('from the text, by indentation of logical lines', () => {
    const at = (line: number) => functionAtText(SOURCE, line);
    expect(at(0)).toBeUndefined();
    expect(at(3)).toBeUndefined();
    expect(at(4)).toBeUndefined(); // inside the docstring
    expect(at(7)).toBe('Order.total');
    expect(at(9)).toBe('Order.total'); // continuation of the signature
    expect(at(11)).toBe('Order.total'); // a comment does not close the method
    expect(at(13)).toBe('Order.total');
    expect(at(16)).toBe('Order.total'); // backslash continuation
    expect(at(17)).toBe('Order.total'); // blank line
    expect(at(19)).toBe('Order.pay');
    expect(at(22)).toBe('load');
    expect(at(23)).toBe('load');
    expect(at(24)).toBeUndefined();
    expect(at(26)).toBe('Ünïcode.método');
  });

  it('prefers symbols, and falls back to the text when they do not help', () => {
    const text = 'class Order:\n    def total(self):\n        return 1\n';
    const pos = { line: 2, character: 8 };
    // A provider's answer wins.
    expect(functionAtCursor([{ name: 'f', kind: SymbolKind.Function, range: r(0, 5), children: [] }], text, pos)).toBe('f');
    // No provider (no Python extension installed).
    expect(functionAtCursor(undefined, text, pos)).toBe('Order.total');
    expect(functionAtCursor([], text, pos)).toBe('Order.total');
    // Flat SymbolInformation results (no tree).
    expect(functionAtCursor([{ name: 'total', kind: SymbolKind.Method, location: {} }], text, pos)).toBe('Order.total');
    // Only top-level symbols: the text knows better.
    expect(functionAtCursor([{ name: 'Order', kind: SymbolKind.Class, range: r(0, 3), children: [] }], text, pos)).toBe(
      'Order.total',
    );
    expect(functionAtCursor(undefined, text, { line: 0, character: 0 })).toBeUndefined();
  });
});
