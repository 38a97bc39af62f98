// Part of `npm run lint:deps`: no folder of src/ holds more than MAX_FILES files (docs/architecture.md "The rules (checked)"). A feature that grows
// past it splits into two features, each with its place in .dependency-cruiser.cjs.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const MAX_FILES = 30;
const crowded = [];

function visit(dir) {
  const entries = readdirSync(dir, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).length;
  if (files > MAX_FILES) crowded.push(`${dir}: ${files} files`);
  for (const e of entries) if (e.isDirectory()) visit(join(dir, e.name));
}

visit("src");
if (crowded.length > 0) {
  console.error(`Folders with more than ${MAX_FILES} files (split them):\n  ${crowded.join("\n  ")}`);
  process.exit(1);
}
console.log(`✔ no folder of src/ holds more than ${MAX_FILES} files`);
