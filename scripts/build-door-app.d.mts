/** scripts/build-door-app.mjs: builds the door app into dist/assets (wrangler.toml [assets]). */
export function buildDoorApp(options?: { quiet?: boolean }): Promise<{ dir: string; version: string }>;
