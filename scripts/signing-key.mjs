// Prints a new Ed25519 signing key for TICKET_SIGNING_KEYS (docs/scanning.md): `node scripts/signing-key.mjs <kid>`.
// To rotate, put the new key first and keep the old one after it (its `d` may be dropped) while its tickets are in use.
import { generateKeyPairSync } from "node:crypto";

const kid = process.argv[2] ?? "";
if (!/^[A-Za-z0-9]{1,8}$/.test(kid)) {
  console.error("usage: node scripts/signing-key.mjs <kid: 1-8 letters and digits>");
  process.exit(2);
}
const { privateKey } = generateKeyPairSync("ed25519");
const { x, d } = privateKey.export({ format: "jwk" });
console.log(JSON.stringify({ kid, kty: "OKP", crv: "Ed25519", x, d }));
