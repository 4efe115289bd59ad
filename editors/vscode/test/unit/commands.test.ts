import { describe, expect, it } from 'vitest';
import { exportArgs, rerunArgs } from '../../src/commands';

describe('server command arguments', () => {
  it('re-runs a file, or the function at a position, which the server finds', () => {
    expect(rerunArgs('file:///p/shop/orders.py')).toEqual([{ uri: 'file:///p/shop/orders.py' }]);
    expect(rerunArgs('file:///p/shop/orders.py', { line: 8, character: 4 })).toEqual([
      { uri: 'file:///p/shop/orders.py', position: { line: 8, character: 4 } },
    ]);
    expect(rerunArgs('file:///p/a.py', undefined)[0]).not.toHaveProperty('position');
  });

  it('exports to the chosen directory, or lets the server choose', () => {
    expect(exportArgs('/p/tests/generated')).toEqual([{ directory: '/p/tests/generated' }]);
    expect(exportArgs()).toEqual([{}]);
  });
});
