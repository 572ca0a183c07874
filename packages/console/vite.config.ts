import { defineConfig } from 'vite';

/**
 * The console is served by the Parley server under /console, so every asset URL carries that base.
 * JSX is compiled by Vite's built-in transformer (automatic runtime); no React plugin is needed
 * for a production build.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill script: the server's Content-Security-Policy allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    // `npm run dev -w @parley/console` next to a running server on :8080. Everything outside the
    // console's own base goes to the server: /api, /management and the IM apps' /{org}/{app}/... .
    proxy: { '^/(?!console/)': 'http://127.0.0.1:8080' },
  },
});
