// What scripts/setup-cloudflare.mjs and scripts/deploy.mjs share about wrangler.toml: reading one target (the top
// level or an environment) the way wrangler itself resolves it, and editing single values in place so that comments,
// order and everything else in the file stay byte for byte as they were.
//
// Reading goes through wrangler's own config reader (`unstable_readConfig` of the wrangler package, a devDependency
// pinned through overrides), so inheritance between the top level and [env.*] is exactly wrangler's. Writing is a
// small line editor for the layout wrangler.toml uses: array-of-tables headers (`[[env.staging.d1_databases]]`) with
// one `key = "string"` per line. It refuses, with the reason, anything it cannot find rather than guessing.

/** The placeholder id of a D1 database that has not been created yet (wrangler.toml ships with it). */
export const ZERO_DATABASE_ID = "00000000-0000-0000-0000-000000000000";

/** The rate-limit namespace ids wrangler.toml ships with: fine locally, to be replaced on a real account. */
export const PLACEHOLDER_NAMESPACE_IDS = new Set(["1001", "1002", "1003", "1004", "1005"]);

/** The name a command-line `--env` value stands for in messages. */
export function targetLabel(env) {
  return env ? `environment "${env}"` : "the top level";
}

/**
 * The flags that select the target on wrangler's command line. The top level is selected with an empty `--env=`, as
 * wrangler advises: without it, commands such as `deploy` and `secret put` warn that several environments exist.
 */
export function envArgs(env) {
  return env ? ["--env", env] : ["--env="];
}

let wranglerModule;
async function wranglerApi() {
  wranglerModule ??= await import("wrangler");
  return wranglerModule;
}

/**
 * The resolved configuration of one target, as wrangler deploys it: `{ name, d1_databases, r2_buckets, queues,
 * ratelimits, vars, ... }`. Throws when `env` names an environment the file does not define (wrangler itself would
 * only warn and fall back to the top level, deploying the wrong thing).
 */
export async function readTarget(configPath, env) {
  const wrangler = await wranglerApi();
  if (env) {
    const { rawConfig } = wrangler.experimental_readRawConfig({ config: configPath }, { hideWarnings: true });
    if (!rawConfig.env || !Object.hasOwn(rawConfig.env, env)) {
      const known = Object.keys(rawConfig.env ?? {});
      throw new Error(`${configPath} defines no [env.${env}]${known.length ? ` (it defines: ${known.join(", ")})` : ""}`);
    }
  }
  return wrangler.unstable_readConfig({ config: configPath, env: env || undefined }, { hideWarnings: true });
}

// --- The line editor -------------------------------------------------------------------------------------------

const HEADER = /^\s*\[(\[)?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(?:#.*)?$/;
const STRING_ENTRY = /^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)"([^"\\]*)"(.*)$/;

/** The file cut into blocks: one per table header, each with its lines' indexes (header excluded). */
function blocks(lines) {
  const found = [];
  let current = null;
  lines.forEach((line, index) => {
    const header = HEADER.exec(line.replace(/\r$/, ""));
    if (header) {
      current = { name: header[2], array: header[1] === "[", header: index, lines: [] };
      found.push(current);
    } else if (current) {
      current.lines.push(index);
    }
  });
  return found;
}

function stringEntry(lines, block, key) {
  for (const index of block.lines) {
    const entry = STRING_ENTRY.exec(lines[index].replace(/\r$/, ""));
    if (entry && entry[2] === key) return { index, value: entry[4] };
  }
  return null;
}

function tableName(env, table) {
  return env ? `env.${env}.${table}` : table;
}

/**
 * Every `[[<table>]]` entry of one target (top level: `[[table]]`; environment: `[[env.<env>.table]]`) as a plain
 * object of its string values.
 */
export function stringTables(text, env, table) {
  const lines = text.split("\n");
  const name = tableName(env, table);
  return blocks(lines)
    .filter((b) => b.array && b.name === name)
    .map((b) => {
      const values = {};
      for (const index of b.lines) {
        const entry = STRING_ENTRY.exec(lines[index].replace(/\r$/, ""));
        if (entry) values[entry[2]] = entry[4];
      }
      return values;
    });
}

/** The namespace ids of every [[ratelimits]] entry in the file, top level and environments: `[{ env, name, id }]`. */
export function allNamespaceIds(text) {
  const lines = text.split("\n");
  return blocks(lines)
    .filter((b) => b.array && /^(?:env\.[^.]+\.)?ratelimits$/.test(b.name))
    .map((b) => ({
      env: /^env\.([^.]+)\./.exec(b.name)?.[1] ?? "",
      name: stringEntry(lines, b, "name")?.value,
      id: stringEntry(lines, b, "namespace_id")?.value,
    }));
}

/**
 * Sets `key = "value"` in the one `[[<table>]]` entry of the target whose `matchKey` is `matchValue`, keeping the rest
 * of the line (a trailing comment) and of the file as it was. Answers the new text, identical to `text` when the value
 * was already there. Throws when the entry or the key is missing, or when several entries match.
 */
export function setString(text, { env, table, matchKey, matchValue, key, value }) {
  if (/["\\\n]/.test(value)) throw new Error(`refusing to write ${key} = ${JSON.stringify(value)}: not a plain string`);
  const lines = text.split("\n");
  const name = tableName(env, table);
  const matching = blocks(lines).filter((b) => b.array && b.name === name && stringEntry(lines, b, matchKey)?.value === matchValue);
  const where = `[[${name}]] with ${matchKey} = "${matchValue}"`;
  if (matching.length === 0) throw new Error(`no ${where} in the configuration`);
  if (matching.length > 1) throw new Error(`${matching.length} entries ${where} in the configuration; expected one`);
  const entry = stringEntry(lines, matching[0], key);
  if (!entry) throw new Error(`${where} has no ${key} = "..." line to set`);
  if (entry.value === value) return text;
  const line = lines[entry.index];
  const parts = STRING_ENTRY.exec(line.replace(/\r$/, ""));
  if (!parts) throw new Error(`cannot parse line ${entry.index + 1}: ${line}`);
  lines[entry.index] = `${parts[1]}${parts[2]}${parts[3]}"${value}"${parts[5]}${line.endsWith("\r") ? "\r" : ""}`;
  return lines.join("\n");
}
