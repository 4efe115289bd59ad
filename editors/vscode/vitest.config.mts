import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const vscodeMock = fileURLToPath(new URL('./test/mocks/vscode.ts', import.meta.url));

export default defineConfig({
  test: {
    projects: [
      {
        // Extension logic against a mocked `vscode` module: `npm test`.
        resolve: { alias: { vscode: vscodeMock } },
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        // The real `lacuna lsp` (env LACUNA_BIN, default ../../target/debug/lacuna), driven over
        // stdio as the extension drives it: `npm run test:contract`.
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 60_000,
          // Generation uses every core: one server at a time.
          fileParallelism: false,
          sequence: { concurrent: false },
        },
      },
    ],
  },
});
