// The Apple Wallet pass's signature (decisions.md 15 "Wallet passes"; docs/wallet.md), checked by a party other than
// the code that made it: the system's openssl makes a throwaway root, a WWDR-like intermediate it signs and a pass
// certificate that signs, the service's own pass code (src/lib, bundled with esbuild, run on Node's WebCrypto as on
// workerd's) builds a pass with them, and `openssl smime -verify` checks the detached signature over manifest.json
// against the root. Without openssl the test fails, saying so: it never skips.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { unzipSync } from "fflate";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = mkdtempSync(join(tmpdir(), "wallet-signature-"));

function openssl(...args) {
  try {
    return execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }).toString();
  } catch (err) {
    if (err.code === "ENOENT") throw new Error("openssl is not installed: this test needs the system's openssl (Debian: apt-get install openssl)");
    throw new Error(`openssl ${args.join(" ")} failed: ${err.stderr?.toString() ?? err.message}`);
  }
}

/** A certificate for `name`, its key PKCS#8 PEM, signed by `issuer` (or itself), a CA when `ca`. */
function certificate(name, issuer, ca) {
  writeFileSync(
    join(dir, `${name}.ext`),
    ca ? "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n" : "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n",
  );
  openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-subj", `/CN=Throwaway ${name}`, "-out", `${name}.csr`);
  const signer = issuer ? ["-CA", `${issuer}.pem`, "-CAkey", `${issuer}.key`, "-CAcreateserial"] : ["-signkey", `${name}.key`];
  openssl("x509", "-req", "-in", `${name}.csr`, ...signer, "-days", "30", "-sha256", "-extfile", `${name}.ext`, "-out", `${name}.pem`);
}

let pass;

before(async () => {
  certificate("root", null, true);
  certificate("wwdr", "root", true);
  certificate("pass", "wwdr", false);
  const entry = ["pkpass", "pkcs7-signature", "pass-images"].map((m) => `export * from ${JSON.stringify(join(ROOT, "src/lib", `${m}.ts`))};`).join("\n");
  const outfile = join(dir, "pass-code.mjs");
  await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    outfile,
    logLevel: "error",
  });
  const code = await import(pathToFileURL(outfile).href);
  const read = (file) => readFileSync(join(dir, file), "utf8");
  const signer = await code.importSigner(read("pass.pem"), read("pass.key"), [read("wwdr.pem")]);
  const json = code.passJson({
    passTypeIdentifier: "pass.test.throwaway",
    teamIdentifier: "TEAM123456",
    serialNumber: "AAAAAAAAAAAAAAAA",
    organizationName: "Tickets",
    description: "Ticket: Concert",
    eventName: "Concert",
    dateText: "04/07/2031 21:15",
    relevantDate: "2031-07-04T21:15:00+02:00",
    location: "",
    typeText: "Regular",
    holderName: "Ada",
    barcodeMessage: "AAAAAAAAAAAAAAAA",
  });
  const files = { "pass.json": new TextEncoder().encode(JSON.stringify(json)), ...(await code.passImages()) };
  pass = unzipSync(await code.packPass(files, (manifest) => code.signDetached(signer, manifest, new Date())));
  writeFileSync(join(dir, "manifest.json"), pass["manifest.json"]);
  writeFileSync(join(dir, "signature"), pass.signature);
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe("the Apple Wallet pass's signature", () => {
  test("openssl smime -verify accepts it against the throwaway root", () => {
    openssl(
      "smime",
      "-verify",
      "-binary",
      "-inform",
      "DER",
      "-in",
      "signature",
      "-content",
      "manifest.json",
      "-CAfile",
      "root.pem",
      "-purpose",
      "any",
      "-out",
      "verified",
    );
    assert.deepEqual(new Uint8Array(readFileSync(join(dir, "verified"))), pass["manifest.json"]);
  });

  test("it carries the pass certificate and the intermediate, and a signing time", () => {
    const certs = openssl("pkcs7", "-inform", "DER", "-in", "signature", "-print_certs");
    assert.match(certs, /subject=CN ?= ?Throwaway pass/);
    assert.match(certs, /subject=CN ?= ?Throwaway wwdr/);
    assert.match(openssl("cms", "-cmsout", "-print", "-inform", "DER", "-in", "signature"), /signingTime/);
  });

  test("a changed manifest does not verify", () => {
    const changed = new Uint8Array(pass["manifest.json"]);
    changed[2] ^= 1;
    writeFileSync(join(dir, "changed.json"), changed);
    assert.throws(
      () => openssl("smime", "-verify", "-binary", "-inform", "DER", "-in", "signature", "-content", "changed.json", "-CAfile", "root.pem", "-purpose", "any"),
      /failed/,
    );
  });
});
