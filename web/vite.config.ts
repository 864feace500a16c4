import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard is served by the api process under /dashboard/ (api/dashboard/). Assets get
 * content hashes in their names, so the server can mark them immutable. No inline script: the
 * CSP forbids it, so the module-preload polyfill (an inline helper in some builds) is off; every
 * browser the dashboard supports preloads modules natively. The output folder is given by
 * scripts/build-web.js (a temporary folder, renamed into place once complete).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [react()],
  build: {
    modulePreload: { polyfill: false },
    // .vite/manifest.json: the chunk graph, read by bench/dashboard.bench.ts (never served: only
    // index.html and assets/ are).
    manifest: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 300,
  },
});
